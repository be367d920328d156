import type { TRPCRouterRecord } from "@trpc/server";
import { createTokenInput, revokeTokenInput } from "@tranche/contracts";
import { createApiToken, listApiTokens, revokeApiToken } from "@tranche/domain";
import { authedProcedure } from "../trpc";

export const tokenRouter = {
  list: authedProcedure.query(({ ctx }) => listApiTokens(ctx.prisma, ctx.user)),
  create: authedProcedure.input(createTokenInput).mutation(({ ctx, input }) => createApiToken(ctx.prisma, ctx.user, input)),
  revoke: authedProcedure.input(revokeTokenInput).mutation(({ ctx, input }) => revokeApiToken(ctx.prisma, ctx.user, input.id)),
} satisfies TRPCRouterRecord;
