import type { PrismaClient } from "@tranche/db";
import {
  auditQueryInput,
  createClusterInput,
  updateClusterPolicyInput,
  createTreeNodeInput,
  createUserInput,
  issueEnrollmentTokenInput,
  labImportQuery,
  labExportQuery,
  oidcRuleInput,
  previewAllocationInput,
  putAllocationInput,
  treeNodePersonInput,
  treePath,
  updateTreeNodeInput,
  updateUserInput,
} from "@tranche/contracts";
import {
  addBudgetMember,
  addTreeManager,
  archiveTreeNode,
  assertMayAddUnder,
  assertMayReshape,
  createCluster,
  updateClusterPolicy,
  createOidcRule,
  createTreeNode,
  createUser,
  deleteOidcRule,
  issueEnrollmentToken,
  listAudit,
  listEnrollmentTokens,
  listOidcRules,
  listUsers,
  previewShare,
  setShare,
  updateTreeNode,
  updateUser,
  requireRole,
  type Actor,
  type Role,
  listNodePeople,
  importLab,
  exportLab,
  removeBudgetMember,
  removeTreeManager,
  resetPasswordLink,
  type WhatIfLimiter,
} from "@tranche/domain";
import { inWhatIfTurn } from "../what-if-turn";
import { decodePathSegment, json, noQuery, parse, queryBoolean, queryNumber, queryOf, readJson } from "./io";
import { readLabFile } from "./lab-file";

/** Where set-password links point: the public URL when configured, else the URL the request came to. */
export const publicOrigin = (req: Request) =>
  process.env.TRANCHE_PUBLIC_URL ?? process.env.BETTER_AUTH_URL ?? new URL(req.url).origin;

/**
 * One admin route: who may call it at all (admins pass every role) and what it does. The role is
 * checked before the route reads its body or query, so a caller without it gets 403 and learns nothing
 * of the input's shape from a 400. The use-case checks again, with the subtree where that matters.
 */
interface AdminRoute {
  roles: readonly Role[];
  what: string;
  run: () => Promise<Response>;
}

const route = (roles: readonly Role[], what: string, run: () => Promise<Response>): AdminRoute => ({ roles, what, run });
const ADMIN: readonly Role[] = ["ADMIN"];

/**
 * The administration routes of /api/v1 (admins, operators, managers where the use-case allows).
 * `parts` are the decoded path segments after /api/v1; a tree path may fill several of them
 * (/budgets/lab/vision/allocation). Answers null when no admin route matches.
 */
export async function handleAdminRest(
  req: Request,
  method: string,
  rawParts: string[],
  actor: Actor,
  prisma: PrismaClient,
  whatIfLimiter?: WhatIfLimiter,
): Promise<Response | null> {
  const matched = adminRoute(req, method, rawParts, actor, prisma, whatIfLimiter);
  if (!matched) return null;
  requireRole(actor, matched.roles, matched.what);
  return matched.run();
}

function adminRoute(
  req: Request,
  method: string,
  rawParts: string[],
  actor: Actor,
  prisma: PrismaClient,
  whatIfLimiter: WhatIfLimiter | undefined,
): AdminRoute | null {
  // Tree paths may come with their slashes encoded (lab%2Fvision): decode, then split again.
  const parts = rawParts.map(decodePathSegment).join("/").split("/").filter(Boolean);
  const [head, second, third] = parts;

  if (head === "clusters") {
    if (parts.length === 1 && method === "POST")
      return route(ADMIN, "create clusters", async () =>
        json({ cluster: await createCluster(prisma, actor, parse(createClusterInput, await readJson(req))) }, 201),
      );
    if (parts.length === 2 && method === "PATCH")
      return route(ADMIN, "change a cluster's policy", async () => {
        const input = parse(updateClusterPolicyInput, await readJson(req));
        return json({ cluster: await updateClusterPolicy(prisma, actor, second!, input) });
      });
    if (parts.length === 3 && third === "enrollment-tokens") {
      if (method === "POST")
        return route(["OPERATOR"], "issue enrollment tokens", async () => {
          const input = parse(issueEnrollmentTokenInput, await readJson(req, { optional: true }));
          return json(await issueEnrollmentToken(prisma, actor, second!, input), 201);
        });
      if (method === "GET")
        return route(["OPERATOR"], "see enrollment tokens", async () => {
          noQuery(req, "the enrollment token list's query");
          return json({ tokens: await listEnrollmentTokens(prisma, actor, second!) });
        });
    }
  }
  if (head === "budgets") {
    // Shaping the tree: admins, and managers below the nodes they manage. A manager's subtree is
    // checked on the path (the parent a body names) before the rest is read, so one outside it is
    // refused as a researcher is, whatever else they sent; the use-case checks again under the lock.
    if (parts.length === 1 && method === "POST")
      return route(["MANAGER"], "change the budget tree", async () => {
        const body = await readJson(req);
        const parent = body && typeof body === "object" ? (body as Record<string, unknown>).parent : undefined;
        await assertMayAddUnder(prisma, actor, typeof parent === "string" ? parent : undefined);
        return json({ node: await createTreeNode(prisma, actor, parse(createTreeNodeInput, body)) }, 201);
      });
    const tail = parts.at(-1)!;
    const path = (segments: string[]) => parse(treePath("path"), segments.join("/"));
    // The what-if of a share: what the budgets page's drag previews, for scripts and the CLI.
    if (parts.length >= 4 && tail === "what-if" && parts.at(-2) === "allocation" && method === "POST")
      return route(["MANAGER"], "preview allocations", async () => {
        const at = path(parts.slice(1, -2));
        const input = parse(previewAllocationInput, await readJson(req));
        return json({ preview: await inWhatIfTurn(whatIfLimiter, actor.id, () => previewShare(prisma, actor, at, input)) });
      });
    if (parts.length >= 3 && tail === "allocation" && method === "PUT")
      return route(["MANAGER"], "change allocations", async () => {
        const at = path(parts.slice(1, -1));
        return json({ allocation: await setShare(prisma, actor, at, parse(putAllocationInput, await readJson(req))) });
      });
    if (parts.length >= 3 && tail === "members" && method === "POST")
      return route(["MANAGER"], "change who may charge a budget", async () => {
        const at = path(parts.slice(1, -1));
        const { email } = parse(treeNodePersonInput, await readJson(req));
        return json({ member: await addBudgetMember(prisma, actor, at, email) }, 201);
      });
    if (parts.length >= 3 && tail === "managers" && method === "POST")
      return route(ADMIN, "choose who manages a subtree", async () => {
        const at = path(parts.slice(1, -1));
        const { email } = parse(treeNodePersonInput, await readJson(req));
        return json({ manager: await addTreeManager(prisma, actor, at, email) }, 201);
      });
    // GET .../members and .../managers: who may charge the node and who manages it, by name (the
    // same read as the budgets page, and the same rule as changing them: admins, and managers inside
    // their subtree).
    if (parts.length >= 3 && (tail === "members" || tail === "managers") && method === "GET")
      return route(["MANAGER"], "see who may charge a budget", async () => {
        noQuery(req, `the ${tail === "members" ? "member" : "manager"} list's query`);
        const people = await listNodePeople(prisma, actor, path(parts.slice(1, -1)));
        return json(
          tail === "members" ? { path: people.path, members: people.members } : { path: people.path, managers: people.managers },
        );
      });
    // DELETE .../members?email=E and .../managers?email=E: the person named by the query (a DELETE
    // has no body), before the DELETE of a node below, which a path ending in these words would be. The
    // query is read strictly, as every route's is (queryOf): a repeated e-mail (the first was removed) or
    // any other parameter (it was ignored) is a 400 naming it, and nothing changes.
    const person = () => parse(treeNodePersonInput, queryOf(req)).email;
    if (parts.length >= 3 && tail === "members" && method === "DELETE")
      return route(["MANAGER"], "change who may charge a budget", async () =>
        json({ member: await removeBudgetMember(prisma, actor, path(parts.slice(1, -1)), person()) }),
      );
    if (parts.length >= 3 && tail === "managers" && method === "DELETE")
      return route(ADMIN, "choose who manages a subtree", async () =>
        json({ manager: await removeTreeManager(prisma, actor, path(parts.slice(1, -1)), person()) }),
      );
    if (parts.length >= 2) {
      if (method === "DELETE")
        return route(["MANAGER"], "change the budget tree", async () => {
          await assertMayReshape(prisma, actor, parts.slice(1).join("/"));
          return json({ node: await archiveTreeNode(prisma, actor, path(parts.slice(1))) });
        });
      if (method === "PATCH")
        return route(["MANAGER"], "change the budget tree", async () => {
          await assertMayReshape(prisma, actor, parts.slice(1).join("/"));
          const at = path(parts.slice(1));
          return json({ node: await updateTreeNode(prisma, actor, at, parse(updateTreeNodeInput, await readJson(req))) });
        });
    }
  }
  if (head === "users") {
    if (parts.length === 1 && method === "GET")
      return route(ADMIN, "list users", async () => {
        noQuery(req, "the user list's query");
        return json({ users: await listUsers(prisma, actor) });
      });
    if (parts.length === 1 && method === "POST")
      return route(ADMIN, "create users", async () =>
        json(await createUser(prisma, actor, parse(createUserInput, await readJson(req)), publicOrigin(req)), 201),
      );
    if (parts.length === 2 && method === "PATCH")
      return route(ADMIN, "change users", async () =>
        json({ user: await updateUser(prisma, actor, second!, parse(updateUserInput, await readJson(req))) }),
      );
    // A new set-password link for a user who lost theirs or forgot the password (the old link ends).
    if (parts.length === 3 && third === "password-link" && method === "POST")
      return route(ADMIN, "issue set-password links", async () =>
        json(await resetPasswordLink(prisma, actor, second!, publicOrigin(req)), 201),
      );
  }
  if (head === "oidc-rules") {
    if (parts.length === 1 && method === "GET")
      return route(ADMIN, "see the OIDC mapping", async () => {
        noQuery(req, "the OIDC rule list's query");
        return json({ rules: await listOidcRules(prisma, actor) });
      });
    if (parts.length === 1 && method === "POST")
      return route(ADMIN, "change the OIDC mapping", async () =>
        json({ rule: await createOidcRule(prisma, actor, parse(oidcRuleInput, await readJson(req))) }, 201),
      );
    if (parts.length === 2 && method === "DELETE")
      return route(ADMIN, "change the OIDC mapping", async () => {
        await deleteOidcRule(prisma, actor, second!);
        return json({ deleted: second });
      });
  }
  // A lab file: users, tree, managers, members and shares in one transaction (dryRun: what it would do).
  if (head === "admin" && second === "import" && parts.length === 2 && method === "POST")
    return route(ADMIN, "import a lab file", async () => {
      const q = queryOf(req);
      const { dryRun } = parse(labImportQuery, { ...q, dryRun: queryBoolean(q.dryRun) });
      const result = await importLab(prisma, actor, await readLabFile(req), { dryRun, origin: publicOrigin(req) });
      return json({ import: result }, dryRun ? 200 : 201);
    });
  // The lab as a lab file, to edit and import again (the shares on one cluster with ?cluster=).
  if (head === "admin" && second === "export" && parts.length === 2 && method === "GET")
    return route(ADMIN, "export the lab", async () => {
      const { cluster } = parse(labExportQuery, queryOf(req));
      return json({ lab: await exportLab(prisma, actor, cluster ? { cluster } : {}) });
    });
  if (head === "audit" && parts.length === 1 && method === "GET")
    // Operators and managers read their part of it (audit-scope.ts); researchers are refused here.
    return route(["OPERATOR", "MANAGER"], "read the audit log", async () => {
      const q = queryOf(req);
      const input = parse(auditQueryInput, { ...q, limit: queryNumber(q.limit) });
      return json({ entries: await listAudit(prisma, actor, input) });
    });
  return null;
}
