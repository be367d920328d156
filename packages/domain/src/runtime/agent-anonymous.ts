import type { PrismaClient } from "@tranche/db";
import { LIMITS } from "@tranche/contracts";

/**
 * Agent requests nobody is known for yet (an enrollment, a credential this process has not seen hold)
 * each cost a database lookup on the agents' five connections, which queue in turn: thousands at once
 * from one client would put every enrolled node's heartbeat behind theirs. So they are bounded per
 * client address, before the lookup. Enrolled agents are told apart without a lookup of their own, by
 * the credential hashes of every node in service read once a minute, so a client flooding from the address the
 * lab's reverse proxy gives all of them cannot lock them out. The set only spares a request the bound:
 * the credential is still looked up and checked as ever.
 */

const KNOWN_MAX_AGE_MS = 60_000;

// Per process, on globalThis: Next may load this module once per agent route's bundle.
const g = globalThis as unknown as {
  trancheAgentAnonymous?: { inFlight: Map<string, number>; known: Set<string>; readAt: number; reading: Promise<void> | null };
};
const state = () => (g.trancheAgentAnonymous ??= { inFlight: new Map(), known: new Set(), readAt: 0, reading: null });

/**
 * Whether `hash` is a node credential's, as of the last read of them all (started anew, not waited for,
 * once it is a minute old). Before the first read has answered, every caller waits for that one read:
 * after a restart all the agents come back at once, and none should be taken for a stranger.
 */
export async function isKnownCredential(prisma: PrismaClient, hash: string, now = Date.now()): Promise<boolean> {
  const s = state();
  if (now - s.readAt > KNOWN_MAX_AGE_MS && !s.reading) {
    s.reading = prisma.node
      .findMany({
        where: { agentCredentialHash: { not: null }, state: { not: "RETIRED" } },
        select: { agentCredentialHash: true },
      })
      .then((rows) => {
        s.known = new Set(rows.map((r) => r.agentCredentialHash!));
        s.readAt = Date.now();
      })
      // The database away: the bound applies to everyone until it answers; the agents retry anyway.
      .catch(() => undefined)
      .finally(() => (s.reading = null));
  }
  if (s.readAt === 0 && s.reading) await s.reading;
  return s.known.has(hash);
}

/** A credential seen to hold (or just issued) is known at once, before the next read; one refused is not. */
export function noteCredential(hash: string, holds: boolean): void {
  if (holds) state().known.add(hash);
  else state().known.delete(hash);
}

/**
 * Counts one anonymous request of `client` (an address; null when unknown: one bucket for all such) and
 * answers the function that ends it, or null when the address already has its bound in flight.
 */
export function enterAnonymousAgentRequest(
  client: string | null,
  limit = LIMITS.agentAnonymousRequestsInFlightPerAddress,
): (() => void) | null {
  const map = state().inFlight;
  const key = client ?? "";
  const now = map.get(key) ?? 0;
  if (now >= limit) return null;
  map.set(key, now + 1);
  let left = false;
  return () => {
    if (left) return;
    left = true;
    const rest = (map.get(key) ?? 1) - 1;
    if (rest > 0) map.set(key, rest);
    else map.delete(key);
  };
}

/** Forget everything (tests). */
export function resetAnonymousAgentRequests(): void {
  g.trancheAgentAnonymous = undefined;
}
