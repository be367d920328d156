import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import {
  auditQueryInput,
  createClusterInput,
  updateClusterPolicyInput,
  createTreeNodeInput,
  createUserInput,
  issueEnrollmentTokenInput,
  oidcRuleInput,
  putAllocationInput,
  setPasswordInput,
  treeNodePersonInput,
  treePath,
  updateTreeNodeInput,
  updateUserInput,
} from "@tranche/contracts";
import {
  addBudgetMember,
  addTreeManager,
  archiveTreeNode,
  completePasswordSetup,
  createCluster,
  updateClusterPolicy,
  createOidcRule,
  createTreeNode,
  createUser,
  deleteOidcRule,
  issueEnrollmentToken,
  listAudit,
  listEnrollmentTokens,
  listNodePeople,
  listOidcRules,
  listUsers,
  removeBudgetMember,
  removeTreeManager,
  resetPasswordLink,
  revokeNodeCredential,
  setShare,
  updateTreeNode,
  updateUser,
} from "@tranche/domain";
import { authedProcedure, publicProcedure } from "../trpc";

// The web app's Admin section. The domain checks every role (admins; operators for enrollment and
// node credentials; managers inside their subtree for members and shares); these are thin.

const at = { path: treePath("path") };
const origin = (o: string | undefined) =>
  process.env.TRANCHE_PUBLIC_URL ?? process.env.BETTER_AUTH_URL ?? o ?? "http://127.0.0.1:3000";

export const adminRouter = {
  createNode: authedProcedure
    .input(createTreeNodeInput)
    .mutation(({ ctx, input }) => createTreeNode(ctx.prisma, ctx.user, input)),
  updateNode: authedProcedure
    .input(z.object({ ...at, change: updateTreeNodeInput }))
    .mutation(({ ctx, input }) => updateTreeNode(ctx.prisma, ctx.user, input.path, input.change)),
  archiveNode: authedProcedure
    .input(z.object(at))
    .mutation(({ ctx, input }) => archiveTreeNode(ctx.prisma, ctx.user, input.path)),
  setShare: authedProcedure
    .input(putAllocationInput.extend(at))
    .mutation(({ ctx, input }) => setShare(ctx.prisma, ctx.user, input.path, input)),
  people: authedProcedure.input(z.object(at)).query(({ ctx, input }) => listNodePeople(ctx.prisma, ctx.user, input.path)),
  addMember: authedProcedure
    .input(treeNodePersonInput.extend(at))
    .mutation(({ ctx, input }) => addBudgetMember(ctx.prisma, ctx.user, input.path, input.email)),
  removeMember: authedProcedure
    .input(treeNodePersonInput.extend(at))
    .mutation(({ ctx, input }) => removeBudgetMember(ctx.prisma, ctx.user, input.path, input.email)),
  addManager: authedProcedure
    .input(treeNodePersonInput.extend(at))
    .mutation(({ ctx, input }) => addTreeManager(ctx.prisma, ctx.user, input.path, input.email)),
  removeManager: authedProcedure
    .input(treeNodePersonInput.extend(at))
    .mutation(({ ctx, input }) => removeTreeManager(ctx.prisma, ctx.user, input.path, input.email)),

  users: authedProcedure.query(({ ctx }) => listUsers(ctx.prisma, ctx.user)),
  createUser: authedProcedure
    .input(createUserInput)
    .mutation(({ ctx, input }) => createUser(ctx.prisma, ctx.user, input, origin(ctx.origin))),
  updateUser: authedProcedure
    .input(z.object({ id: z.string().min(1), change: updateUserInput }))
    .mutation(({ ctx, input }) => updateUser(ctx.prisma, ctx.user, input.id, input.change)),
  resetPasswordLink: authedProcedure
    .input(z.object({ id: z.string().min(1) }))
    .mutation(({ ctx, input }) => resetPasswordLink(ctx.prisma, ctx.user, input.id, origin(ctx.origin))),

  oidcRules: authedProcedure.query(({ ctx }) => listOidcRules(ctx.prisma, ctx.user)),
  createOidcRule: authedProcedure.input(oidcRuleInput).mutation(({ ctx, input }) => createOidcRule(ctx.prisma, ctx.user, input)),
  deleteOidcRule: authedProcedure
    .input(z.object({ id: z.string().min(1) }))
    .mutation(({ ctx, input }) => deleteOidcRule(ctx.prisma, ctx.user, input.id)),

  createCluster: authedProcedure
    .input(createClusterInput)
    .mutation(({ ctx, input }) => createCluster(ctx.prisma, ctx.user, input)),
  updateClusterPolicy: authedProcedure
    .input(updateClusterPolicyInput.extend({ cluster: z.string().min(1, "cluster is required") }))
    .mutation(({ ctx, input: { cluster, ...change } }) => updateClusterPolicy(ctx.prisma, ctx.user, cluster, change)),
  issueEnrollmentToken: authedProcedure
    .input(issueEnrollmentTokenInput.extend({ cluster: z.string().min(1, "cluster is required") }))
    .mutation(({ ctx, input }) => issueEnrollmentToken(ctx.prisma, ctx.user, input.cluster, input)),
  enrollmentTokens: authedProcedure
    .input(z.object({ cluster: z.string().optional() }).optional())
    .query(({ ctx, input }) => listEnrollmentTokens(ctx.prisma, ctx.user, input?.cluster)),
  revokeNodeCredential: authedProcedure
    .input(z.object({ node: z.string().min(1) }))
    .mutation(({ ctx, input }) => revokeNodeCredential(ctx.prisma, ctx.user, input.node)),

  audit: authedProcedure.input(auditQueryInput).query(({ ctx, input }) => listAudit(ctx.prisma, ctx.user, input)),
} satisfies TRPCRouterRecord;

/** The set-password page: no session yet, the one-time link's token is the proof. */
export const accountRouter = {
  setPassword: publicProcedure.input(setPasswordInput).mutation(({ ctx, input }) => completePasswordSetup(ctx.prisma, input)),
} satisfies TRPCRouterRecord;
