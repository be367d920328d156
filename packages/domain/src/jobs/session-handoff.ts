import { createHash, randomBytes } from "node:crypto";
import type { PrismaClient } from "@tranche/db";
import type { Actor, Role } from "../auth/actor";
import { DomainError, badInput, forbidden } from "../errors";
import { ownSession } from "./sessions";

/**
 * Handing a session's owner over from the web app to the sessions host (TRANCHE_SESSIONS_ORIGIN).
 * That host never sees the app's login cookie, so it asks the app: it gives the browser a random
 * state (in a cookie of its own) and sends it to the app, which, for the session's owner, issues a
 * ticket bound to the session, the owner and that state. Back on the sessions host the ticket is
 * traded, once, for a cookie good for that session only. The state keeps a ticket from working in
 * another browser: someone who sends you a ticket to their own session cannot sign your browser in
 * to it (and from there read your sessions, which share that host).
 */

/** A ticket lives for one redirect, with room for a slow machine. */
export const SESSION_TICKET_TTL_SEC = 60;
/** The sessions host's cookie: a working day at most; the session's end or a disabled owner ends it first. */
export const SESSION_GRANT_TTL_SEC = 12 * 3600;
/** Spent hand-offs are kept this long after their ticket expired, so a late retry is told "used" or "expired". */
const KEEP_SPENT_MS = 24 * 3600_000;

const STATE = /^[A-Za-z0-9_-]{32,128}$/;
const hash = (s: string): string => createHash("sha256").update(s, "utf8").digest("hex");
const AGAIN = "open the session again from its page in Tranche";

/** A random state for a browser starting a hand-off (the sessions host keeps it in a cookie). */
export function newHandoffState(): string {
  return randomBytes(32).toString("base64url");
}

/** The ticket for session `jobId`, for its owner only (404 to anyone else); `state` is the browser's. */
export async function issueSessionTicket(prisma: PrismaClient, actor: Actor, jobId: number, state: string): Promise<string> {
  if (!STATE.test(state))
    throw badInput("state must be the 32 to 128 letters, digits, '-' or '_' the sessions host gave", "state");
  await ownSession(prisma, actor, jobId);
  const now = Date.now();
  const ticket = randomBytes(32).toString("base64url");
  // Spent hand-offs go as new ones are made: the table holds the live ones and a day of the rest.
  await prisma.sessionHandoff.deleteMany({
    where: {
      ticketExpiresAt: { lt: new Date(now - KEEP_SPENT_MS) },
      OR: [{ grantExpiresAt: null }, { grantExpiresAt: { lt: new Date(now) } }],
    },
  });
  await prisma.sessionHandoff.create({
    data: {
      jobId,
      userId: actor.id,
      ticketHash: hash(ticket),
      stateHash: hash(state),
      ticketExpiresAt: new Date(now + SESSION_TICKET_TTL_SEC * 1000),
    },
  });
  return ticket;
}

/**
 * Trade a ticket for the sessions host's cookie for session `jobId`. A ticket is spent by its first
 * try, whatever comes of it. Unknown: 401; used, expired, made for another session or another browser,
 * or its owner disabled since: 403, each in one sentence.
 */
export async function redeemSessionTicket(
  prisma: PrismaClient,
  input: { ticket: string; state: string | null; jobId: number },
): Promise<{ grant: string; expiresAt: Date }> {
  const row = await prisma.sessionHandoff.findUnique({
    where: { ticketHash: hash(input.ticket) },
    select: { id: true, jobId: true, stateHash: true, ticketExpiresAt: true, user: { select: { disabledAt: true } } },
  });
  if (!row) throw new DomainError("UNAUTHORIZED", `This link to a session is not one Tranche issued: ${AGAIN}`);
  const now = new Date();
  const claimed = await prisma.sessionHandoff.updateMany({ where: { id: row.id, usedAt: null }, data: { usedAt: now } });
  if (claimed.count === 0) throw forbidden(`This link to a session was already used: ${AGAIN}`);
  if (row.ticketExpiresAt <= now)
    throw forbidden(`This link to a session expired (it lasts ${SESSION_TICKET_TTL_SEC} s): ${AGAIN}`);
  if (row.jobId !== input.jobId)
    throw forbidden(`This link was made for session ${row.jobId}, not session ${input.jobId}: ${AGAIN}`);
  if (input.state === null || hash(input.state) !== row.stateHash)
    throw forbidden(`This link to a session was made for another browser: ${AGAIN} in this browser`);
  if (row.user.disabledAt) throw forbidden("Your account is disabled; ask an admin to enable it");
  const grant = randomBytes(32).toString("base64url");
  const expiresAt = new Date(now.getTime() + SESSION_GRANT_TTL_SEC * 1000);
  await prisma.sessionHandoff.update({ where: { id: row.id }, data: { grantHash: hash(grant), grantExpiresAt: expiresAt } });
  return { grant, expiresAt };
}

/**
 * Who the sessions host's cookie stands for, on session `jobId`: "unknown" when it is not one, has
 * expired or was issued for another session (the browser is handed over again), "disabled" when its
 * owner has been disabled since. The session's own state is checked where it is reached (sessionTarget).
 */
export async function readSessionGrant(
  prisma: PrismaClient,
  grant: string,
  jobId: number,
): Promise<{ actor: Actor } | { refused: "unknown" | "disabled" }> {
  const row = await prisma.sessionHandoff.findUnique({
    where: { grantHash: hash(grant) },
    select: {
      jobId: true,
      grantExpiresAt: true,
      user: { select: { id: true, email: true, name: true, role: true, disabledAt: true } },
    },
  });
  if (!row || row.jobId !== jobId || !row.grantExpiresAt || row.grantExpiresAt <= new Date()) return { refused: "unknown" };
  const u = row.user;
  if (u.disabledAt) return { refused: "disabled" };
  return { actor: { id: u.id, email: u.email, name: u.name, role: u.role as Role } };
}

/**
 * Signing out of Tranche ends the sessions host's cookies too (auth-options.ts calls this when a
 * login session is deleted): on a shared browser, whoever comes next must not reopen the last user's
 * session from the history. Every hand-off of that user goes, tickets in flight included; their
 * other browsers are handed over again when they next open a session.
 */
export async function endSessionGrants(prisma: PrismaClient, userId: string): Promise<number> {
  return (await prisma.sessionHandoff.deleteMany({ where: { userId } })).count;
}
