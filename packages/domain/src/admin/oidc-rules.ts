import type { PrismaClient, Tx } from "@tranche/db";
import { requireRole, ROLES, type Actor, type Role } from "../auth/actor";
import { badInput, conflict, notFound } from "../errors";
import { writeAudit } from "./audit";

/**
 * OIDC mapping rules: a user who signs in through OIDC for the first time gets the highest role of the
 * rules matching their e-mail domain or one of their group claims, and membership of every budget
 * those rules name. The web app's auth calls applyOidcRules when it links a new OIDC account.
 */

export interface OidcRuleView {
  id: string;
  match: "EMAIL_DOMAIN" | "GROUP";
  value: string;
  role: Role;
  budgets: string[];
}

const view = (r: { id: string; match: string; value: string; role: string; budgetPaths: string[] }): OidcRuleView => ({
  id: r.id,
  match: r.match as OidcRuleView["match"],
  value: r.value,
  role: r.role as Role,
  budgets: r.budgetPaths,
});

const normalise = (match: string, value: string) => (match === "EMAIL_DOMAIN" ? value.replace(/^@/, "").toLowerCase() : value);

export async function listOidcRules(prisma: PrismaClient, actor: Actor): Promise<OidcRuleView[]> {
  requireRole(actor, ["ADMIN"], "see the OIDC mapping");
  return (await prisma.oidcRoleRule.findMany({ orderBy: [{ match: "asc" }, { value: "asc" }] })).map(view);
}

export async function createOidcRule(
  prisma: PrismaClient,
  actor: Actor,
  input: { match: "EMAIL_DOMAIN" | "GROUP"; value: string; role: Role; budgets: string[] },
): Promise<OidcRuleView> {
  requireRole(actor, ["ADMIN"], "change the OIDC mapping");
  const value = normalise(input.match, input.value);
  return prisma.$transaction(async (tx) => {
    for (const [i, path] of input.budgets.entries()) {
      const n = await tx.budgetTreeNode.findUnique({
        where: { path },
        include: { _count: { select: { children: { where: { archivedAt: null } } } } },
      });
      if (!n || n.archivedAt) throw badInput(`budgets.${i}: there is no budget '${path}'`, `budgets.${i}`);
      if (n._count.children > 0) throw badInput(`budgets.${i}: '${path}' is a group of budgets, not a budget`, `budgets.${i}`);
    }
    if (await tx.oidcRoleRule.findUnique({ where: { match_value: { match: input.match, value } } }))
      throw conflict(`value: there is already a rule for ${input.match === "GROUP" ? "group" : "domain"} '${value}'`, "value");
    const r = await tx.oidcRoleRule.create({ data: { match: input.match, value, role: input.role, budgetPaths: input.budgets } });
    await writeAudit(
      tx,
      actor,
      "oidc-rule.create",
      { type: "oidc_rule", id: r.id, label: `${input.match}:${value}` },
      { role: r.role, budgets: r.budgetPaths },
    );
    return view(r);
  });
}

export async function deleteOidcRule(prisma: PrismaClient, actor: Actor, id: string): Promise<void> {
  requireRole(actor, ["ADMIN"], "change the OIDC mapping");
  await prisma.$transaction(async (tx) => {
    const r = await tx.oidcRoleRule.findUnique({ where: { id } });
    if (!r) throw notFound(`There is no OIDC rule '${id}'`);
    await tx.oidcRoleRule.delete({ where: { id } });
    await writeAudit(tx, actor, "oidc-rule.delete", { type: "oidc_rule", id, label: `${r.match}:${r.value}` });
  });
}

/** Apply the rules to a user who just signed in through OIDC. Returns what was applied (null: no rule matched). */
export async function applyOidcRules(
  prisma: PrismaClient,
  userId: string,
  claims: { email: string; groups: string[] },
): Promise<{ role: Role; budgets: string[] } | null> {
  const domain = claims.email.split("@")[1]?.toLowerCase() ?? "";
  const rules = await prisma.oidcRoleRule.findMany({
    where: {
      OR: [
        { match: "EMAIL_DOMAIN", value: domain },
        { match: "GROUP", value: { in: claims.groups } },
      ],
    },
  });
  if (rules.length === 0) return null;
  const higher = (a: Role, b: Role) => (ROLES.indexOf(b) > ROLES.indexOf(a) ? b : a);
  const ruled = rules.map((r) => r.role as Role).reduce(higher);
  const paths = [...new Set(rules.flatMap((r) => r.budgetPaths))];
  return prisma.$transaction(async (tx) => {
    // The rules raise a role, never lower it: an existing account linked to single sign-on
    // (TRANCHE_OIDC_LINK_EXISTING) keeps the role an admin gave it, so an admin is not demoted (nor the
    // last one locked out) by a rule written for newcomers. A new account starts as a researcher.
    const current = await tx.user.findUniqueOrThrow({ where: { id: userId }, select: { role: true } });
    const role = higher(current.role as Role, ruled);
    const u = await tx.user.update({ where: { id: userId }, data: { role } });
    // Budgets only: a node a rule names may have got children since (its name was a budget's when the rule
    // was written), and membership of a group lets nobody submit, while it would block the group's shape.
    const budgets = await tx.budgetTreeNode.findMany({
      where: { path: { in: paths }, archivedAt: null, children: { none: { archivedAt: null } } },
      select: { id: true, path: true },
    });
    await tx.budgetMember.createMany({ data: budgets.map((b) => ({ budgetId: b.id, userId })), skipDuplicates: true });
    await writeAudit(
      tx,
      null,
      "user.oidc-mapped",
      { type: "user", id: userId, label: u.email },
      { role, budgets: budgets.map((b) => b.path), rules: rules.map((r) => r.id) },
    );
    return { role, budgets: budgets.map((b) => b.path) };
  });
}

/**
 * The rules name budgets by path, so a rename or move of a tree node rewrites the paths under it in every
 * rule (in the caller's transaction). Left alone, a rule would name a budget that no longer exists, and
 * newcomers would silently get none; or, once someone reuses the old name, a different budget.
 */
export async function followTreePathInOidcRules(tx: Tx, from: string, to: string): Promise<void> {
  await tx.$executeRaw`UPDATE oidc_role_rule SET "budgetPaths" = ARRAY(
      SELECT CASE WHEN p = ${from} OR starts_with(p, ${from + "/"}) THEN ${to} || substr(p, ${from.length + 1}) ELSE p END
      FROM unnest("budgetPaths") WITH ORDINALITY AS t(p, i) ORDER BY i)
    WHERE EXISTS (SELECT 1 FROM unnest("budgetPaths") AS q(p) WHERE p = ${from} OR starts_with(p, ${from + "/"}))`;
}
