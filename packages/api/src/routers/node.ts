import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { nodeActionInput, nodePlanDrainInput, text } from "@tranche/contracts";
import {
  applyNodeAction,
  cancelNodeDrain,
  planNodeDrain,
  getNodeEvents,
  getRepairQueue,
  listNodes,
  retireNode,
} from "@tranche/domain";
import { authedProcedure, roleProcedure } from "../trpc";

const operator = roleProcedure("OPERATOR");

export const nodeRouter = {
  // retired: the retired nodes too (the Nodes page's "Show retired nodes", GET /nodes?retired=1).
  list: authedProcedure
    .input(z.object({ cluster: text("cluster").max(200).optional(), retired: z.boolean().optional() }).optional())
    .query(({ ctx, input }) => listNodes(ctx.prisma, input?.cluster, undefined, { retired: input?.retired })),
  // One cluster's nodes, as the nodes page shows them (all clusters without one).
  repairQueue: authedProcedure
    .input(z.object({ cluster: text("cluster").max(200).optional() }).optional())
    .query(({ ctx, input }) => getRepairQueue(ctx.prisma, input?.cluster)),
  events: authedProcedure
    .input(z.object({ nodeId: text("nodeId").max(200) }))
    .query(({ ctx, input }) => getNodeEvents(ctx.prisma, input.nodeId)),
  cordon: operator
    .input(nodeActionInput)
    .mutation(({ ctx, input }) => applyNodeAction(ctx.prisma, ctx.user, { id: input.nodeId }, "cordon", input.reason)),
  drain: operator
    .input(nodeActionInput)
    .mutation(({ ctx, input }) => applyNodeAction(ctx.prisma, ctx.user, { id: input.nodeId }, "drain", input.reason)),
  // R8's planned drain: the node drains at `at`; cancelDrain clears the plan.
  planDrain: operator
    .input(nodePlanDrainInput)
    .mutation(({ ctx, input }) => planNodeDrain(ctx.prisma, ctx.user, { id: input.nodeId }, input.at, input.reason)),
  cancelDrain: operator
    .input(nodeActionInput)
    .mutation(({ ctx, input }) => cancelNodeDrain(ctx.prisma, ctx.user, { id: input.nodeId })),
  uncordon: operator
    .input(nodeActionInput)
    .mutation(({ ctx, input }) => applyNodeAction(ctx.prisma, ctx.user, { id: input.nodeId }, "uncordon", input.reason)),
  markRepaired: operator
    .input(nodeActionInput)
    .mutation(({ ctx, input }) => applyNodeAction(ctx.prisma, ctx.user, { id: input.nodeId }, "markRepaired", input.reason)),
  retire: operator
    .input(nodeActionInput)
    .mutation(({ ctx, input }) => retireNode(ctx.prisma, ctx.user, { id: input.nodeId }, input.reason)),
} satisfies TRPCRouterRecord;
