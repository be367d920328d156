import { LIMITS } from "@tranche/contracts";
import { TooManyRequests } from "./too-many-requests";

// Calls in flight per person, on globalThis: Next may load this module once per route bundle, and
// the bound is the process's.
const key = Symbol.for("tranche.callsInFlight");
const g = globalThis as unknown as { [key]?: Map<string, number> };

/**
 * Counts `calls` in flight for `userId`, or throws TooManyRequests when that would pass the bound
 * (LIMITS.callsInFlightPerUser): a person's requests share the web process's event loop and database
 * pool with everyone else's and with the node agents' heartbeats. The web app's pages make a handful
 * of calls at once and the CLI one; a script that runs more in parallel is answered 429, with
 * Retry-After, for the calls past the bound. Answers the function that ends them (call it once, when
 * the answer is ready).
 */
export function enterCalls(userId: string, calls = 1, limit = LIMITS.callsInFlightPerUser): () => void {
  const inFlight = (g[key] ??= new Map());
  const now = inFlight.get(userId) ?? 0;
  if (now + calls > limit)
    throw new TooManyRequests(
      `You have ${now} requests in progress, and at most ${limit} calls may run at once for one person; try again in a moment`,
      1,
    );
  inFlight.set(userId, now + calls);
  let left = false;
  return () => {
    if (left) return;
    left = true;
    const rest = (inFlight.get(userId) ?? calls) - calls;
    if (rest > 0) inFlight.set(userId, rest);
    else inFlight.delete(userId);
  };
}
