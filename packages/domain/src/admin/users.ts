import { randomBytes } from "node:crypto";
import { hashPassword, type PrismaClient, type Tx } from "@tranche/db";
import { personNameProblem, type CreateUserInput, type UpdateUserInput } from "@tranche/contracts";
import { requireRole, type Actor, type Role } from "../auth/actor";
import { badInput, conflict, notFound } from "../errors";
import { hashToken } from "../tokens/api-tokens";
import { writeAudit } from "./audit";

/**
 * Users (admins only). A new user gets a one-time set-password link, valid for 72 hours; the link's
 * token is returned once and only its SHA-256 is stored. No password is ever sent, stored in plain or
 * logged. A disabled user's API tokens are refused (readApiToken reads disabledAt on every call)
 * and their sessions are deleted in the same transaction, so both stop working at once.
 */

export const PASSWORD_LINK_TTL_MS = 72 * 3600 * 1000;
const LINK_PREFIX = "tps_";

export interface UserView {
  id: string;
  email: string;
  name: string;
  role: Role;
  disabled: boolean;
  createdAt: string;
  hasPassword: boolean;
}

type UserRow = { id: string; email: string; name: string; role: string; disabledAt: Date | null; createdAt: Date };
export const userView = (u: UserRow, hasPassword: boolean): UserView => ({
  id: u.id,
  email: u.email,
  name: u.name,
  role: u.role as Role,
  disabled: u.disabledAt !== null,
  createdAt: u.createdAt.toISOString(),
  hasPassword,
});

export interface PasswordLink {
  setPasswordUrl: string;
  expiresAt: string;
}

/** A fresh link for `userId`; earlier unused links of that user end (one live link at a time). */
async function issuePasswordLink(tx: Tx, userId: string, createdBy: string | null, origin: string): Promise<PasswordLink> {
  const token = LINK_PREFIX + randomBytes(32).toString("base64url");
  const expiresAt = new Date(Date.now() + PASSWORD_LINK_TTL_MS);
  await tx.passwordSetupToken.updateMany({ where: { userId, usedAt: null }, data: { expiresAt: new Date() } });
  await tx.passwordSetupToken.create({ data: { userId, tokenHash: hashToken(token), createdBy, expiresAt } });
  return { setPasswordUrl: `${origin.replace(/\/$/, "")}/set-password?token=${token}`, expiresAt: expiresAt.toISOString() };
}

/**
 * The name trimmed, or 400 naming the field when it is no person's name (contracts' personName): the
 * routes check it already; this keeps every caller of these functions (scripts, tests) to the same rule.
 */
function checkedName(name: string): string {
  const problem = personNameProblem(name);
  if (problem) throw badInput(problem, "name");
  return name.trim();
}

export async function listUsers(prisma: PrismaClient, actor: Actor): Promise<UserView[]> {
  requireRole(actor, ["ADMIN"], "list users");
  const rows = await prisma.user.findMany({
    orderBy: [{ role: "desc" }, { email: "asc" }],
    include: { accounts: { where: { providerId: "credential" }, select: { id: true } } },
  });
  return rows.map((u) => userView(u, u.accounts.length > 0));
}

/** POST /users: the account and its set-password link. */
export async function createUser(
  prisma: PrismaClient,
  actor: Actor,
  input: { email: string; name: string; role: CreateUserInput["role"] & string },
  origin: string,
): Promise<{ user: UserView } & PasswordLink> {
  return prisma.$transaction((tx) => createUserIn(tx, actor, input, origin));
}

/** createUser inside the caller's transaction (a lab import's). */
export async function createUserIn(
  tx: Tx,
  actor: Actor,
  input: { email: string; name: string; role: CreateUserInput["role"] & string },
  origin: string,
): Promise<{ user: UserView } & PasswordLink> {
  requireRole(actor, ["ADMIN"], "create users");
  const name = checkedName(input.name);
  if (await tx.user.findUnique({ where: { email: input.email } }))
    throw conflict(`email: a user '${input.email}' already exists`, "email");
  const u = await tx.user.create({ data: { email: input.email, name, role: input.role } });
  const link = await issuePasswordLink(tx, u.id, actor.id, origin);
  await writeAudit(tx, actor, "user.create", { type: "user", id: u.id, label: u.email }, { role: u.role, name: u.name });
  return { user: userView(u, false), ...link };
}

/** A new set-password link for an existing user (the old one ends). */
export async function resetPasswordLink(prisma: PrismaClient, actor: Actor, userId: string, origin: string) {
  requireRole(actor, ["ADMIN"], "issue set-password links");
  return prisma.$transaction(async (tx) => {
    const u = await tx.user.findUnique({ where: { id: userId } });
    if (!u) throw notFound(`There is no user '${userId}'`);
    const link = await issuePasswordLink(tx, u.id, actor.id, origin);
    await writeAudit(tx, actor, "user.password-link", { type: "user", id: u.id, label: u.email });
    return link;
  });
}

/** PATCH /users/{id}: name, role, disabled. An admin cannot demote or disable themselves or the last admin. */
export async function updateUser(prisma: PrismaClient, actor: Actor, userId: string, input: UpdateUserInput): Promise<UserView> {
  return prisma.$transaction((tx) => updateUserIn(tx, actor, userId, input));
}

/** updateUser inside the caller's transaction (a lab import's). */
export async function updateUserIn(tx: Tx, actor: Actor, userId: string, input: UpdateUserInput): Promise<UserView> {
  requireRole(actor, ["ADMIN"], "change users");
  if (input.name !== undefined) input = { ...input, name: checkedName(input.name) };
  // Serialise admin changes so two admins demoting each other cannot leave no admin.
  await tx.$queryRaw`SELECT 1 AS ok FROM (SELECT pg_advisory_xact_lock(7262002::bigint)) l`;
  const u = await tx.user.findUnique({ where: { id: userId } });
  if (!u) throw notFound(`There is no user '${userId}'`);
  const losesAdmin = u.role === "ADMIN" && ((input.role !== undefined && input.role !== "ADMIN") || input.disabled === true);
  if (losesAdmin && u.id === actor.id)
    throw badInput(
      `${input.disabled ? "disabled" : "role"}: you cannot ${input.disabled ? "disable" : "demote"} yourself; another admin must`,
      input.disabled ? "disabled" : "role",
    );
  if (losesAdmin) {
    const others = await tx.user.count({ where: { role: "ADMIN", disabledAt: null, id: { not: u.id } } });
    if (others === 0) throw conflict(`${u.email} is the last admin; make someone else an admin first`);
  }
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  if (input.name !== undefined && input.name !== u.name) changes.name = { from: u.name, to: input.name };
  if (input.role !== undefined && input.role !== u.role) changes.role = { from: u.role, to: input.role };
  if (input.disabled !== undefined && input.disabled !== (u.disabledAt !== null))
    changes.disabled = { from: u.disabledAt !== null, to: input.disabled };
  const hasPassword = (await tx.account.count({ where: { userId: u.id, providerId: "credential" } })) > 0;
  if (Object.keys(changes).length === 0) return userView(u, hasPassword);
  const next = await tx.user.update({
    where: { id: u.id },
    data: {
      ...(changes.name ? { name: input.name } : {}),
      ...(changes.role ? { role: input.role } : {}),
      ...(changes.disabled ? { disabledAt: input.disabled ? new Date() : null } : {}),
    },
  });
  if (input.disabled === true) await tx.session.deleteMany({ where: { userId: u.id } });
  await writeAudit(
    tx,
    actor,
    input.disabled === true && changes.disabled ? "user.disable" : "user.update",
    {
      type: "user",
      id: u.id,
      label: u.email,
    },
    { changes },
  );
  return userView(next, hasPassword);
}

/** Whether a set-password link can still be used (the page says so before anyone types a password). */
export async function passwordLinkIsLive(prisma: PrismaClient, token: string): Promise<boolean> {
  if (!token.startsWith(LINK_PREFIX)) return false;
  const row = await prisma.passwordSetupToken.findUnique({ where: { tokenHash: hashToken(token) }, include: { user: true } });
  return !!row && !row.usedAt && row.expiresAt.getTime() > Date.now() && !row.user.disabledAt;
}

/**
 * The set-password page: a live link sets (or replaces) the user's password, once. A replaced password
 * also ends every browser session the user had (a reset often means someone else knew the old one);
 * their API tokens stay, listed on their API tokens page to revoke.
 */
export async function completePasswordSetup(
  prisma: PrismaClient,
  input: { token: string; password: string },
): Promise<{ email: string }> {
  const row = await prisma.passwordSetupToken.findUnique({
    where: { tokenHash: hashToken(input.token) },
    include: { user: true },
  });
  if (!row || row.usedAt || row.expiresAt.getTime() <= Date.now() || row.user.disabledAt)
    throw badInput("token: this link is unknown, already used or expired; ask an admin for a new one", "token");
  const password = await hashPassword(input.password);
  return prisma.$transaction(async (tx) => {
    const used = await tx.passwordSetupToken.updateMany({ where: { id: row.id, usedAt: null }, data: { usedAt: new Date() } });
    if (used.count !== 1) throw badInput("token: this link was used by another request at the same time", "token");
    await setCredential(tx, row.userId, password);
    await tx.user.update({ where: { id: row.userId }, data: { emailVerified: true } });
    await tx.session.deleteMany({ where: { userId: row.userId } });
    await tx.sessionHandoff.deleteMany({ where: { userId: row.userId } }); // and the sessions host's cookies
    const self: Actor = { id: row.user.id, email: row.user.email, name: row.user.name, role: row.user.role as Role };
    await writeAudit(tx, self, "user.set-password", { type: "user", id: row.userId, label: row.user.email });
    return { email: row.user.email };
  });
}

async function setCredential(tx: Tx, userId: string, passwordHash: string): Promise<void> {
  const acc = await tx.account.findFirst({ where: { userId, providerId: "credential" } });
  if (acc) await tx.account.update({ where: { id: acc.id }, data: { password: passwordHash } });
  else await tx.account.create({ data: { userId, accountId: userId, providerId: "credential", password: passwordHash } });
}

/** `npm run admin -- create-admin`: an admin with a password, from the command line (no actor). */
export async function createAdminWithPassword(
  prisma: PrismaClient,
  input: { email: string; name: string; password: string },
): Promise<Actor> {
  const name = checkedName(input.name);
  const password = await hashPassword(input.password);
  return prisma.$transaction(async (tx) => {
    if (await tx.user.findUnique({ where: { email: input.email } }))
      throw conflict(`email: a user '${input.email}' already exists`, "email");
    const u = await tx.user.create({ data: { email: input.email, name, role: "ADMIN", emailVerified: true } });
    await setCredential(tx, u.id, password);
    await writeAudit(tx, null, "user.create-admin", { type: "user", id: u.id, label: u.email }, { via: "command line" });
    return { id: u.id, email: u.email, name: u.name, role: "ADMIN" };
  });
}
