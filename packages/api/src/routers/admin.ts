import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import {
  auditQueryInput,
  createClusterInput,
  updateClusterPolicyInput,
  createTreeNodeInput,
  createUserInput,
  issueEnrollmentTokenInput,
  labExportQuery,
  nodeActionBody,
  oidcRuleInput,
  putAllocationInput,
  setPasswordInput,
  treeNodePersonInput,
  treePath,
  updateTreeNodeInput,
  updateUserInput,
  userPageInput,
  LIMITS,
  text,
} from "@tranche/contracts";
import {
  addBudgetMember,
  addTreeManager,
  archiveTreeNode,
  assertMayAddUnder,
  assertMayReshape,
  completePasswordSetup,
  createCluster,
  updateClusterPolicy,
  createOidcRule,
  createTreeNode,
  createUser,
  deleteOidcRule,
  exportLab,
  importLab,
  issueEnrollmentToken,
  listAudit,
  listEnrollmentTokens,
  listNodePeople,
  listOidcRules,
  listUserPage,
  listUsers,
  removeBudgetMember,
  removeTreeManager,
  resetPasswordLink,
  revokeNodeCredential,
  setShare,
  updateTreeNode,
  updateUser,
} from "@tranche/domain";
import { parsePastedLab } from "../lab-text";
import { publicProcedure, roleProcedure } from "../trpc";

// The web app's Admin section. The domain checks every role (admins; operators for enrollment and
// node credentials; managers inside their subtree for members, shares and the tree's shape); these are
// thin. Each procedure also names its role, checked before its input is parsed: a caller without the
// role gets FORBIDDEN, never a BAD_REQUEST that describes the input (as on the REST admin routes).
const admin = roleProcedure("ADMIN");
const operator = roleProcedure("OPERATOR");
const manager = roleProcedure("MANAGER");

/**
 * Shaping the tree (admins; managers below the nodes they manage): the subtree is checked on the raw
 * input's path before the rest of the input is parsed, so a manager outside it is refused as a
 * researcher is, whatever else they sent. Anything but a string is in nobody's subtree. The domain
 * checks again under the tree's lock.
 */
const treeShaper = (field: "parent" | "path") =>
  manager.use(async ({ ctx, getRawInput, next }) => {
    const raw: unknown = await getRawInput();
    const at = raw && typeof raw === "object" ? (raw as Record<string, unknown>)[field] : undefined;
    if (field === "parent") await assertMayAddUnder(ctx.prisma, ctx.user, typeof at === "string" ? at : undefined);
    else await assertMayReshape(ctx.prisma, ctx.user, typeof at === "string" ? at : "");
    return next();
  });

const at = { path: treePath("path") };
// Ids and names the server made, as the single calls take them: text (a lone surrogate is a 400, not a
// database error), and bounded.
const serverId = (field: string) => text(field).min(1, `${field} is required`).max(200, `${field} is longer than 200 characters`);
const name = (field: string) =>
  text(field).min(1, `${field} is required`).max(LIMITS.keyChars, `${field} is longer than ${LIMITS.keyChars} characters`);
// A lab file's text, as pasted or uploaded on the web's lab page; its size is checked in bytes as REST's body is.
const labText = z.object({ text: z.string({ error: "text: send the lab file's text" }) });
const origin = (o: string | undefined) =>
  process.env.TRANCHE_PUBLIC_URL ?? process.env.BETTER_AUTH_URL ?? o ?? "http://127.0.0.1:3000";

export const adminRouter = {
  createNode: treeShaper("parent")
    .input(createTreeNodeInput)
    .mutation(({ ctx, input }) => createTreeNode(ctx.prisma, ctx.user, input)),
  updateNode: treeShaper("path")
    .input(z.object({ ...at, change: updateTreeNodeInput }))
    .mutation(({ ctx, input }) => updateTreeNode(ctx.prisma, ctx.user, input.path, input.change)),
  archiveNode: treeShaper("path")
    .input(z.object(at))
    .mutation(({ ctx, input }) => archiveTreeNode(ctx.prisma, ctx.user, input.path)),
  setShare: manager
    .input(putAllocationInput.extend(at))
    .mutation(({ ctx, input }) => setShare(ctx.prisma, ctx.user, input.path, input)),
  people: manager.input(z.object(at)).query(({ ctx, input }) => listNodePeople(ctx.prisma, ctx.user, input.path)),
  addMember: manager
    .input(treeNodePersonInput.extend(at))
    .mutation(({ ctx, input }) => addBudgetMember(ctx.prisma, ctx.user, input.path, input.email)),
  removeMember: manager
    .input(treeNodePersonInput.extend(at))
    .mutation(({ ctx, input }) => removeBudgetMember(ctx.prisma, ctx.user, input.path, input.email)),
  addManager: admin
    .input(treeNodePersonInput.extend(at))
    .mutation(({ ctx, input }) => addTreeManager(ctx.prisma, ctx.user, input.path, input.email)),
  removeManager: admin
    .input(treeNodePersonInput.extend(at))
    .mutation(({ ctx, input }) => removeTreeManager(ctx.prisma, ctx.user, input.path, input.email)),

  users: admin.query(({ ctx }) => listUsers(ctx.prisma, ctx.user)),
  // The Users page: a page at a time, found by name or e-mail (a lab has hundreds of people).
  userPage: admin.input(userPageInput).query(({ ctx, input }) => listUserPage(ctx.prisma, ctx.user, input)),
  createUser: admin
    .input(createUserInput)
    .mutation(({ ctx, input }) => createUser(ctx.prisma, ctx.user, input, origin(ctx.origin))),
  updateUser: admin
    .input(z.object({ id: serverId("id"), change: updateUserInput }))
    .mutation(({ ctx, input }) => updateUser(ctx.prisma, ctx.user, input.id, input.change)),
  resetPasswordLink: admin
    .input(z.object({ id: serverId("id") }))
    .mutation(({ ctx, input }) => resetPasswordLink(ctx.prisma, ctx.user, input.id, origin(ctx.origin))),

  oidcRules: admin.query(({ ctx }) => listOidcRules(ctx.prisma, ctx.user)),
  createOidcRule: admin.input(oidcRuleInput).mutation(({ ctx, input }) => createOidcRule(ctx.prisma, ctx.user, input)),
  deleteOidcRule: admin
    .input(z.object({ id: serverId("id") }))
    .mutation(({ ctx, input }) => deleteOidcRule(ctx.prisma, ctx.user, input.id)),

  createCluster: admin.input(createClusterInput).mutation(({ ctx, input }) => createCluster(ctx.prisma, ctx.user, input)),
  updateClusterPolicy: admin
    .input(updateClusterPolicyInput.extend({ cluster: name("cluster") }))
    .mutation(({ ctx, input: { cluster, ...change } }) => updateClusterPolicy(ctx.prisma, ctx.user, cluster, change)),
  issueEnrollmentToken: operator
    .input(issueEnrollmentTokenInput.extend({ cluster: name("cluster") }))
    .mutation(({ ctx, input }) => issueEnrollmentToken(ctx.prisma, ctx.user, input.cluster, input)),
  enrollmentTokens: operator
    .input(z.object({ cluster: name("cluster").optional() }).optional())
    .query(({ ctx, input }) => listEnrollmentTokens(ctx.prisma, ctx.user, input?.cluster)),
  revokeNodeCredential: operator
    .input(z.object({ node: name("node"), reason: nodeActionBody.shape.reason }))
    .mutation(({ ctx, input }) => revokeNodeCredential(ctx.prisma, ctx.user, input.node, input.reason)),

  // The lab file (REST's POST /admin/import and GET /admin/export): the same parser, the same import.
  labCheck: admin
    .input(labText)
    .mutation(({ ctx, input }) =>
      importLab(ctx.prisma, ctx.user, parsePastedLab(input.text), { dryRun: true, origin: origin(ctx.origin) }),
    ),
  labImport: admin
    .input(labText)
    .mutation(({ ctx, input }) =>
      importLab(ctx.prisma, ctx.user, parsePastedLab(input.text), { dryRun: false, origin: origin(ctx.origin) }),
    ),
  labExport: admin.input(labExportQuery).query(({ ctx, input }) => exportLab(ctx.prisma, ctx.user, input)),

  // Operators and managers read their part of it (audit-scope.ts).
  audit: roleProcedure("OPERATOR", "MANAGER")
    .input(auditQueryInput)
    .query(({ ctx, input }) => listAudit(ctx.prisma, ctx.user, input)),
} satisfies TRPCRouterRecord;

/** The set-password page: no session yet, the one-time link's token is the proof. */
export const accountRouter = {
  setPassword: publicProcedure.input(setPasswordInput).mutation(({ ctx, input }) => completePasswordSetup(ctx.prisma, input)),
} satisfies TRPCRouterRecord;
