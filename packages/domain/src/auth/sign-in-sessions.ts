import type { PrismaClient } from "@tranche/db";
import { deviceWords } from "@tranche/contracts";
import { forbidden, notFound } from "../errors";
import { endSessionGrants } from "../jobs/session-handoff";
import { writeAudit } from "../admin/audit";
import { roleWithArticle, type Actor } from "./actor";

/**
 * A person's signed-in browsers (better-auth's session rows): listed and ended one at a time, or all but
 * the one in use. Everyone manages their own; admins any user's. A session id of someone else's is
 * refused before any row is read, so a non-admin learns nothing of other people's sessions.
 */
export interface SignInSessionView {
  id: string;
  /** "Firefox on Linux": the user agent in words. */
  device: string;
  /** Where it signed in from (the client address the sign-in saw), when known. */
  address: string | null;
  signedInAt: string;
  lastSeenAt: string;
  /** The session this request is signed with. */
  current: boolean;
}

export interface Whose {
  /** Another user's sessions (admins only); unset: the caller's own. */
  userId?: string;
  /** The session the request came with, if it came with one (API tokens have none). */
  currentId?: string | null;
}

function ownerOf(actor: Actor, userId: string | undefined): string {
  if (userId === undefined || userId === actor.id) return actor.id;
  if (actor.role !== "ADMIN")
    throw forbidden(
      `Only admins may see or end another person's signed-in sessions; you are signed in as ${roleWithArticle(actor.role)}.`,
    );
  return userId;
}

export async function listSignInSessions(prisma: PrismaClient, actor: Actor, whose: Whose = {}): Promise<SignInSessionView[]> {
  const userId = ownerOf(actor, whose.userId);
  const rows = await prisma.session.findMany({
    where: { userId, expiresAt: { gt: new Date() } },
    orderBy: [{ lastSeenAt: "desc" }, { id: "asc" }],
    select: { id: true, userAgent: true, ipAddress: true, createdAt: true, lastSeenAt: true },
  });
  return rows.map((r) => ({
    id: r.id,
    device: deviceWords(r.userAgent),
    address: r.ipAddress || null,
    signedInAt: r.createdAt.toISOString(),
    lastSeenAt: r.lastSeenAt.toISOString(),
    current: r.id === whose.currentId,
  }));
}

/** Ends one session: its browser is signed out at its next request. */
export async function endSignInSession(prisma: PrismaClient, actor: Actor, sessionId: string, whose: Whose = {}): Promise<void> {
  const userId = ownerOf(actor, whose.userId);
  await prisma.$transaction(async (tx) => {
    const { count } = await tx.session.deleteMany({ where: { id: sessionId, userId } });
    if (count === 0) throw notFound("That signed-in session is not there any more: it has ended or was never yours to end");
    if (userId !== actor.id) await auditEnded(tx, actor, userId, 1);
  });
  await endSessionGrants(prisma, userId);
}

/** Ends every session of the user but the one in use (an admin's for another user: all of them). */
export async function endOtherSignInSessions(prisma: PrismaClient, actor: Actor, whose: Whose = {}): Promise<number> {
  const userId = ownerOf(actor, whose.userId);
  const keep = userId === actor.id ? whose.currentId : null;
  const count = await prisma.$transaction(async (tx) => {
    const { count } = await tx.session.deleteMany({ where: { userId, ...(keep ? { id: { not: keep } } : {}) } });
    if (userId !== actor.id && count > 0) await auditEnded(tx, actor, userId, count);
    return count;
  });
  if (count > 0) await endSessionGrants(prisma, userId);
  return count;
}

async function auditEnded(tx: Parameters<typeof writeAudit>[0], actor: Actor, userId: string, sessions: number) {
  const u = await tx.user.findUnique({ where: { id: userId }, select: { email: true } });
  await writeAudit(tx, actor, "user.end-sessions", { type: "user", id: userId, label: u?.email ?? userId }, { sessions });
}

/** Marks the session seen now, at most once a minute (each page asks several times). */
export async function touchSignInSession(prisma: PrismaClient, sessionId: string, now: Date = new Date()): Promise<void> {
  await prisma.session.updateMany({
    where: { id: sessionId, lastSeenAt: { lt: new Date(now.getTime() - 60_000) } },
    data: { lastSeenAt: now },
  });
}
