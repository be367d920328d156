import { createHash, randomBytes } from "node:crypto";
import type { PrismaClient } from "@tranche/db";
import type { Actor, Role } from "../auth/actor";
import { forbidden, notFound } from "../errors";

export const TOKEN_PREFIX = "trn_";

/** sha256 of the whole token: tokens are 32 random bytes, so a fast hash is the right tool. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

export interface ApiTokenView {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
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

/** A new bearer token for the actor; the plain token is returned once and never stored. */
export async function createApiToken(
  prisma: PrismaClient,
  actor: Actor,
  input: { name: string; expiresInDays?: number | null },
): Promise<{ token: string; apiToken: ApiTokenView }> {
  const token = TOKEN_PREFIX + randomBytes(32).toString("base64url");
  const expiresAt = input.expiresInDays ? new Date(Date.now() + input.expiresInDays * 86_400_000) : null;
  const row = await prisma.$transaction(async (tx) => {
    const t = await tx.apiToken.create({
      data: { userId: actor.id, name: input.name, prefix: token.slice(0, 10), tokenHash: hashToken(token), expiresAt },
    });
    await tx.auditLog.create({
      data: { actorId: actor.id, action: "token.create", targetType: "api_token", targetId: t.id, details: { name: input.name } },
    });
    return t;
  });
  return { token, apiToken: view(row) };
}

export async function listApiTokens(prisma: PrismaClient, actor: Actor): Promise<ApiTokenView[]> {
  const rows = await prisma.apiToken.findMany({ where: { userId: actor.id }, orderBy: { createdAt: "desc" } });
  return rows.map(view);
}

export async function revokeApiToken(prisma: PrismaClient, actor: Actor, id: string): Promise<ApiTokenView> {
  const t = await prisma.apiToken.findUnique({ where: { id } });
  if (!t) throw notFound(`There is no API token '${id}'`);
  if (t.userId !== actor.id && actor.role !== "ADMIN") throw forbidden("You may revoke only your own API tokens");
  for (const [k, v] of tokenCache) if (v.tokenId === id) tokenCache.delete(k);
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
 * Resolved tokens are remembered for a few seconds per process (scripts call many times a second);
 * revoking through this process forgets them at once, elsewhere within TOKEN_CACHE_MS.
 */
const TOKEN_CACHE_MS = 5_000;
const tokenCache = new Map<string, { actor: Actor; tokenId: string; until: number; expiresAt: number | null }>();

/** The actor a bearer token stands for, or null when it is unknown, revoked, expired or its user disabled. */
export async function resolveApiToken(prisma: PrismaClient, token: string): Promise<Actor | null> {
  if (!token.startsWith(TOKEN_PREFIX)) return null;
  const hash = hashToken(token);
  const hit = tokenCache.get(hash);
  if (hit && hit.until > Date.now() && (hit.expiresAt === null || hit.expiresAt > Date.now())) return hit.actor;
  const actor = await lookupApiToken(prisma, hash);
  if (actor) tokenCache.set(hash, { ...actor, until: Date.now() + TOKEN_CACHE_MS });
  else tokenCache.delete(hash);
  if (tokenCache.size > 10_000) tokenCache.clear();
  return actor?.actor ?? null;
}

async function lookupApiToken(
  prisma: PrismaClient,
  hash: string,
): Promise<{ actor: Actor; tokenId: string; expiresAt: number | null } | null> {
  const t = await prisma.apiToken.findUnique({
    where: { tokenHash: hash },
    include: { user: { select: { id: true, email: true, name: true, role: true, disabledAt: true } } },
  });
  const now = Date.now();
  if (!t || t.revokedAt || (t.expiresAt && t.expiresAt.getTime() <= now) || t.user.disabledAt) return null;
  // Touch lastUsedAt at most once a minute so a busy script does not write on every call.
  if (!t.lastUsedAt || now - t.lastUsedAt.getTime() > 60_000)
    await prisma.apiToken.update({ where: { id: t.id }, data: { lastUsedAt: new Date(now) } }).catch(() => undefined);
  return {
    actor: { id: t.user.id, email: t.user.email, name: t.user.name, role: t.user.role as Role },
    tokenId: t.id,
    expiresAt: t.expiresAt?.getTime() ?? null,
  };
}
