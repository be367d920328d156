import type { PrismaClient } from "@tranche/db";
import {
  auditQueryInput,
  createClusterInput,
  updateClusterPolicyInput,
  createTreeNodeInput,
  createUserInput,
  issueEnrollmentTokenInput,
  oidcRuleInput,
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
  revokeNodeCredential,
  setShare,
  updateTreeNode,
  updateUser,
  type Actor,
} from "@tranche/domain";
import { json, parse, readJson } from "./io";

/** Where set-password links point: the public URL when configured, else the URL the request came to. */
export const publicOrigin = (req: Request) =>
  process.env.TRANCHE_PUBLIC_URL ?? process.env.BETTER_AUTH_URL ?? new URL(req.url).origin;

const TAILS = new Set(["allocation", "members", "managers"]);

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
): Promise<Response | null> {
  // Tree paths may come with their slashes encoded (lab%2Fvision): decode, then split again.
  const parts = rawParts.map(decodeURIComponent).join("/").split("/").filter(Boolean);
  const [head, second, third] = parts;
  const url = new URL(req.url);

  if (head === "clusters") {
    if (parts.length === 1 && method === "POST")
      return json({ cluster: await createCluster(prisma, actor, parse(createClusterInput, await readJson(req))) }, 201);
    if (parts.length === 2 && method === "PATCH") {
      const input = parse(updateClusterPolicyInput, await readJson(req));
      return json({ cluster: await updateClusterPolicy(prisma, actor, second!, input) });
    }
    if (parts.length === 3 && third === "enrollment-tokens") {
      if (method === "POST") {
        const input = parse(issueEnrollmentTokenInput, await readJson(req, { optional: true }));
        return json(await issueEnrollmentToken(prisma, actor, second!, input), 201);
      }
      if (method === "GET") return json({ tokens: await listEnrollmentTokens(prisma, actor, second!) });
    }
  }
  if (head === "budgets") {
    if (parts.length === 1 && method === "POST")
      return json({ node: await createTreeNode(prisma, actor, parse(createTreeNodeInput, await readJson(req))) }, 201);
    const tail = parts.at(-1)!;
    if (parts.length >= 3 && TAILS.has(tail) && (method === "POST" || method === "PUT")) {
      const path = parse(treePath("path"), parts.slice(1, -1).join("/"));
      if (tail === "allocation" && method === "PUT")
        return json({ allocation: await setShare(prisma, actor, path, parse(putAllocationInput, await readJson(req))) });
      if (tail === "members" && method === "POST") {
        const { email } = parse(treeNodePersonInput, await readJson(req));
        return json({ member: await addBudgetMember(prisma, actor, path, email) }, 201);
      }
      if (tail === "managers" && method === "POST") {
        const { email } = parse(treeNodePersonInput, await readJson(req));
        return json({ manager: await addTreeManager(prisma, actor, path, email) }, 201);
      }
    }
    if (parts.length >= 2 && (method === "PATCH" || method === "DELETE")) {
      const path = parse(treePath("path"), parts.slice(1).join("/"));
      if (method === "DELETE") return json({ node: await archiveTreeNode(prisma, actor, path) });
      return json({ node: await updateTreeNode(prisma, actor, path, parse(updateTreeNodeInput, await readJson(req))) });
    }
  }
  if (head === "users") {
    if (parts.length === 1 && method === "GET") return json({ users: await listUsers(prisma, actor) });
    if (parts.length === 1 && method === "POST")
      return json(await createUser(prisma, actor, parse(createUserInput, await readJson(req)), publicOrigin(req)), 201);
    if (parts.length === 2 && method === "PATCH")
      return json({ user: await updateUser(prisma, actor, second!, parse(updateUserInput, await readJson(req))) });
  }
  if (head === "nodes" && parts.length === 3 && third === "revoke-credential" && method === "POST")
    return json({ node: await revokeNodeCredential(prisma, actor, second!) });
  if (head === "oidc-rules") {
    if (parts.length === 1 && method === "GET") return json({ rules: await listOidcRules(prisma, actor) });
    if (parts.length === 1 && method === "POST")
      return json({ rule: await createOidcRule(prisma, actor, parse(oidcRuleInput, await readJson(req))) }, 201);
    if (parts.length === 2 && method === "DELETE") {
      await deleteOidcRule(prisma, actor, second!);
      return json({ deleted: second });
    }
  }
  if (head === "audit" && parts.length === 1 && method === "GET") {
    const q = Object.fromEntries(url.searchParams);
    const input = parse(auditQueryInput, { ...q, ...(q.limit !== undefined ? { limit: Number(q.limit) } : {}) });
    return json({ entries: await listAudit(prisma, actor, input) });
  }
  return null;
}
