import { formatBytes, LIMITS } from "@tranche/contracts";
import { TooManyRequests } from "./too-many-requests";

// What each person has in flight, per gate, on globalThis: Next may load this module once per route
// bundle, and the bounds are the process's.
const g = globalThis as unknown as Record<symbol, Map<string, number> | undefined>;
const gate = (name: string): Map<string, number> => (g[Symbol.for(`tranche.${name}`)] ??= new Map());

/** Counts `units` for `userId` in `map`, or throws TooManyRequests (saying `refusal`) past `limit`. */
function enter(map: Map<string, number>, userId: string, units: number, limit: number, refusal: (now: number) => string) {
  const now = map.get(userId) ?? 0;
  if (now + units > limit) throw new TooManyRequests(refusal(now), 1);
  map.set(userId, now + units);
  let left = false;
  return (): void => {
    if (left) return;
    left = true;
    const rest = (map.get(userId) ?? units) - units;
    if (rest > 0) map.set(userId, rest);
    else map.delete(userId);
  };
}

/**
 * Counts `calls` in flight for `userId`, or throws TooManyRequests when that would pass the bound
 * (LIMITS.callsInFlightPerUser): a person's requests share the web process's event loop and database
 * pool with everyone else's and with the node agents' heartbeats. The web app's pages make a handful
 * of calls at once and the CLI one; a script that runs more in parallel is answered 429, with
 * Retry-After, for the calls past the bound. Answers the function that ends them (call it once, when
 * the answer is ready).
 */
export function enterCalls(userId: string, calls = 1, limit = LIMITS.callsInFlightPerUser): () => void {
  return enter(
    gate("callsInFlight"),
    userId,
    calls,
    limit,
    (now) =>
      `You have ${now} requests in progress, and at most ${limit} calls may run at once for one person; try again in a moment`,
  );
}

/**
 * One live-queue read of `userId` asking for `rows` pending rows (its limit, or the default): counted
 * against LIMITS.queueRowsInFlightPerUser until its answer is built, or refused with TooManyRequests. A
 * read of 10,000 rows builds about 60 MB in the web process, and calls in flight alone let one person
 * run 16 at once.
 */
export function enterQueueRows(userId: string, rows: number, limit = LIMITS.queueRowsInFlightPerUser): () => void {
  return enter(
    gate("queueRows"),
    userId,
    rows,
    limit,
    (now) =>
      `Your queue reads in progress ask for ${now.toLocaleString("en-US")} pending rows, and one person's may ask for at most ${limit.toLocaleString("en-US")} at once; ask for fewer (limit) or try again in a moment`,
  );
}

/**
 * One job list of `userId` asking for `rows` jobs (its limit, or the default): counted against
 * LIMITS.jobRowsInFlightPerUser until its answer is built, or refused with TooManyRequests. Each listed
 * job carries its command and environment, so 1,000 of them can be 72 MB of JSON.
 */
export function enterJobRows(userId: string, rows: number, limit = LIMITS.jobRowsInFlightPerUser): () => void {
  return enter(
    gate("jobRows"),
    userId,
    rows,
    limit,
    (now) =>
      `Your job lists in progress ask for ${now.toLocaleString("en-US")} jobs, and one person's may ask for at most ${limit.toLocaleString("en-US")} at once; ask for fewer (limit) or try again in a moment`,
  );
}

/**
 * One log page of `userId` asking for `chunks` chunks (its limit, or the default): counted against
 * LIMITS.logChunksInFlightPerUser until its answer is built, or refused with TooManyRequests. A chunk
 * holds up to 64 Ki characters, so a page of 1,000 can be 66 MB of JSON.
 */
export function enterLogChunks(userId: string, chunks: number, limit = LIMITS.logChunksInFlightPerUser): () => void {
  return enter(
    gate("logChunks"),
    userId,
    chunks,
    limit,
    (now) =>
      `Your log pages in progress ask for ${now.toLocaleString("en-US")} chunks, and one person's may ask for at most ${limit.toLocaleString("en-US")} at once; ask for fewer (limit) or try again in a moment`,
  );
}

/**
 * One request of `userId` through the sessions host to a session's server, whose body holds
 * `bodyBytes` (read whole before it is sent on): counted against LIMITS.sessionRequestsPerUser and
 * LIMITS.sessionBodyBytesPerUser until its answer's headers are back, or refused with TooManyRequests.
 * The session's server is its owner's code and may take its time: without a bound one person's
 * uploads held gigabytes of the process everyone's requests share.
 */
export function enterSessionRequest(
  userId: string,
  bodyBytes: number,
  limits = { requests: LIMITS.sessionRequestsPerUser, bytes: LIMITS.sessionBodyBytesPerUser },
): () => void {
  const leaveRequest = enter(
    gate("sessionRequests"),
    userId,
    1,
    limits.requests,
    (now) =>
      `You have ${now} requests to your sessions in progress, and at most ${limits.requests} may run at once for one person; try again in a moment`,
  );
  if (bodyBytes <= 0) return leaveRequest;
  try {
    const leaveBytes = enter(
      gate("sessionBodyBytes"),
      userId,
      bodyBytes,
      limits.bytes,
      (now) =>
        `Your requests to your sessions in progress carry ${formatBytes(now)}, and at most ${formatBytes(limits.bytes)} may be on their way at once for one person; try again in a moment`,
    );
    return () => {
      leaveBytes();
      leaveRequest();
    };
  } catch (e) {
    leaveRequest();
    throw e;
  }
}

/** One WebSocket of `userId` to a session's server, open until the function answered is called (LIMITS.sessionSocketsPerUser). */
export function enterSessionSocket(userId: string, limit = LIMITS.sessionSocketsPerUser): () => void {
  return enter(
    gate("sessionSockets"),
    userId,
    1,
    limit,
    (now) =>
      `You have ${now} WebSockets open to your sessions, and at most ${limit} may be open at once for one person; close one first`,
  );
}
