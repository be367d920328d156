import { createHash, randomBytes } from "node:crypto";
import { LIMITS, type ApiTokenView } from "@tranche/contracts";
import type { PrismaClient, Tx } from "@tranche/db";
import type { Actor, Role } from "../auth/actor";
import { wholeNumberFromEnv } from "../env-number";
import { badInput, conflict, forbidden, notFound } from "../errors";
import { lockForUser, USER_LOCK } from "../user-lock";
import { checkTokenPace } from "./token-pace";

export { API_TOKENS_PER_HOUR } from "./token-pace";

export type { ApiTokenView } from "@tranche/contracts";

export const TOKEN_PREFIX = "trn_";
/**
 * Live tokens one person may hold; ended ones (revoked or expired) each person keeps, for so many days
 * and at most so many, deleted as tokens are made (LIMITS). So a person holds at most 200 rows, and a
 * loop that makes (and revokes) tokens cannot grow the table without end.
 */
export const MAX_LIVE_TOKENS_PER_USER = LIMITS.liveApiTokensPerUser;
export const ENDED_TOKEN_KEEP_DAYS = LIMITS.endedApiTokenDays;
export const MAX_ENDED_TOKENS_PER_USER = LIMITS.endedApiTokensPerUser;

/** sha256 of the whole token: tokens are 32 random bytes, so a fast hash is the right tool. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

const view = (t: {
  id: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
}): ApiTokenView => ({
  id: t.id,
  name: t.name,
  prefix: t.prefix,
  createdAt: t.createdAt.toISOString(),
  lastUsedAt: t.lastUsedAt?.toISOString() ?? null,
  expiresAt: t.expiresAt?.toISOString() ?? null,
  revokedAt: t.revokedAt?.toISOString() ?? null,
});

/** The longest (and default) life of an API token in days: TRANCHE_API_TOKEN_TTL_DAYS, else 90. */
export function apiTokenTtlDays(env: Record<string, string | undefined> = process.env): number {
  return wholeNumberFromEnv(env, "TRANCHE_API_TOKEN_TTL_DAYS", 90, { min: 1, max: 3650, what: " of days from 1 to 3650" });
}

/**
 * A new bearer token for the actor; the plain token is returned once and never stored. Every token
 * expires: a stolen session must not be able to mint a key that outlives it by years. `madeBy` names
 * what made it for the actor without them (a command on the server): the audit log then credits the
 * system and says for whom and how, not the person, who did nothing.
 */
export async function createApiToken(
  prisma: PrismaClient,
  actor: Actor,
  input: { name: string; expiresInDays?: number | null },
  madeBy?: string,
): Promise<{ token: string; apiToken: ApiTokenView }> {
  const ttl = apiTokenTtlDays();
  const days = input.expiresInDays ?? ttl;
  if (days > ttl)
    throw badInput(
      `expiresInDays ${days} is longer than the longest token life of ${ttl} days (TRANCHE_API_TOKEN_TTL_DAYS)`,
      "expiresInDays",
    );
  const token = TOKEN_PREFIX + randomBytes(32).toString("base64url");
  const expiresAt = new Date(Date.now() + days * 86_400_000);
  const row = await prisma.$transaction(async (tx) => {
    // Before the counts below (live tokens, tokens this hour): two at once must not both pass them.
    await lockForUser(tx, USER_LOCK.apiTokens, actor.id);
    const live = await tx.apiToken.count({
      where: { userId: actor.id, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] },
    });
    if (live >= MAX_LIVE_TOKENS_PER_USER)
      throw conflict(
        `You already hold ${MAX_LIVE_TOKENS_PER_USER} live API tokens, the most one person may; revoke one you no longer use first`,
      );
    if (!madeBy) await checkTokenPace(tx, actor.id);
    await dropEndedTokens(tx, actor.id);
    const t = await tx.apiToken.create({
      data: { userId: actor.id, name: input.name, prefix: token.slice(0, 10), tokenHash: hashToken(token), expiresAt },
    });
    await tx.auditLog.create({
      data: {
        actorId: madeBy ? null : actor.id,
        action: "token.create",
        targetType: "api_token",
        targetId: t.id,
        details: madeBy ? { name: input.name, for: actor.email, madeBy } : { name: input.name },
      },
    });
    return t;
  });
  return { token, apiToken: view(row) };
}

/**
 * Deletes the person's ended tokens past ENDED_TOKEN_KEEP_DAYS, and past the newest
 * MAX_ENDED_TOKENS_PER_USER (one about to be made may push one more out). A token ends when revoked
 * or when it expires, whichever came first. Done as tokens are made, as spent session hand-offs are.
 */
async function dropEndedTokens(tx: Tx, userId: string): Promise<void> {
  const cutoff = new Date(Date.now() - ENDED_TOKEN_KEEP_DAYS * 86_400_000);
  await tx.$executeRaw`
    DELETE FROM api_token WHERE id IN (
      SELECT id FROM (
        SELECT id, "endedAt", row_number() OVER (ORDER BY "endedAt" DESC, id DESC) AS n
        FROM (
          SELECT id, LEAST("revokedAt", CASE WHEN "expiresAt" <= now() THEN "expiresAt" END) AS "endedAt"
          FROM api_token WHERE "userId" = ${userId}) a
        WHERE "endedAt" IS NOT NULL) e
      WHERE "endedAt" < ${cutoff} OR n >= ${MAX_ENDED_TOKENS_PER_USER})`;
}

/** The person's live tokens and those that ended in the last ENDED_TOKEN_KEEP_DAYS, newest first. */
export async function listApiTokens(prisma: PrismaClient, actor: Actor): Promise<ApiTokenView[]> {
  const since = new Date(Date.now() - ENDED_TOKEN_KEEP_DAYS * 86_400_000);
  const rows = await prisma.apiToken.findMany({
    where: {
      userId: actor.id,
      AND: [
        { OR: [{ revokedAt: null }, { revokedAt: { gte: since } }] },
        { OR: [{ expiresAt: null }, { expiresAt: { gte: since } }] },
      ],
    },
    orderBy: { createdAt: "desc" },
    take: MAX_LIVE_TOKENS_PER_USER + MAX_ENDED_TOKENS_PER_USER,
  });
  return rows.map(view);
}

export async function revokeApiToken(prisma: PrismaClient, actor: Actor, id: string): Promise<ApiTokenView> {
  const t = await prisma.apiToken.findUnique({ where: { id } });
  if (!t) throw notFound(`There is no API token '${id}'`);
  if (t.userId !== actor.id && actor.role !== "ADMIN") throw forbidden("You may revoke only your own API tokens");
  if (t.revokedAt) return view(t);
  const row = await prisma.$transaction(async (tx) => {
    const r = await tx.apiToken.update({ where: { id }, data: { revokedAt: new Date() } });
    await tx.auditLog.create({
      data: { actorId: actor.id, action: "token.revoke", targetType: "api_token", targetId: id, details: { name: t.name } },
    });
    return r;
  });
  return view(row);
}

/**
 * The actor a bearer token stands for, or why it is refused: "disabled" for a live token (known, not
 * revoked, not expired) whose user an admin disabled, so its holder is told plainly; "unknown" for
 * anything else, so a guessed or stale token learns nothing.
 * Nothing is cached: every request reads the token afresh, so a revoked token (or a disabled user) is
 * refused at once in every process. One statement both reads the token with its user and touches
 * lastUsedAt (at most once a minute, so a busy script does not write on every call): one round trip.
 */
export async function readApiToken(
  prisma: PrismaClient,
  token: string,
): Promise<{ actor: Actor } | { refused: "unknown" | "disabled" }> {
  if (!token.startsWith(TOKEN_PREFIX)) return { refused: "unknown" };
  const hash = hashToken(token);
  const now = new Date();
  const minuteAgo = new Date(now.getTime() - 60_000);
  const rows = await prisma.$queryRaw<
    {
      revokedAt: Date | null;
      expiresAt: Date | null;
      userId: string;
      email: string;
      name: string;
      role: string;
      disabledAt: Date | null;
    }[]
  >`
    WITH t AS (
      SELECT t."revokedAt", t."expiresAt", u.id AS "userId", u.email, u.name, u.role::text AS role, u."disabledAt"
      FROM api_token t JOIN "user" u ON u.id = t."userId"
      WHERE t."tokenHash" = ${hash}
    ), touched AS (
      UPDATE api_token a SET "lastUsedAt" = ${now}
      WHERE a."tokenHash" = ${hash} AND a."revokedAt" IS NULL AND (a."expiresAt" IS NULL OR a."expiresAt" > ${now})
        AND (a."lastUsedAt" IS NULL OR a."lastUsedAt" < ${minuteAgo})
        AND NOT EXISTS (SELECT 1 FROM t WHERE t."disabledAt" IS NOT NULL)
      RETURNING a.id
    )
    SELECT t.* FROM t LEFT JOIN (SELECT count(*) AS n FROM touched) x ON true`;
  const t = rows[0];
  if (!t || t.revokedAt || (t.expiresAt && t.expiresAt.getTime() <= now.getTime())) return { refused: "unknown" };
  if (t.disabledAt) return { refused: "disabled" };
  return { actor: { id: t.userId, email: t.email, name: t.name, role: t.role as Role } };
}
