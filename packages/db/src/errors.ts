// A configuration problem a person must fix. Entry points print `message` on one line, no stack.
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** Seconds a client is told to wait (Retry-After) when the database cannot be reached. */
export const DATABASE_RETRY_AFTER_SEC = 5;

// Prisma's codes for "cannot reach / lost the server / no connection to be had".
const PRISMA_UNAVAILABLE = new Set(["P1001", "P1002", "P1008", "P1017", "P2024"]);
// Postgres SQLSTATEs of a server that is shutting down, starting, or full: class 08 (connection
// exception), 57P01-57P03 (admin shutdown, crash shutdown, cannot connect now), 53300 (too many connections).
const PG_UNAVAILABLE = /^(08...|57P0[123]|53300)$/;
const ADAPTER_UNAVAILABLE = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections"]);
const NODE_UNAVAILABLE = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ENOTFOUND", "EAI_AGAIN"]);
// node-postgres' own words for a connection the server ended (a shutdown, a crash): they carry no code.
// Prisma's timeouts of an interactive transaction (P2028): no connection to start one within maxWait,
// or one that outlived its timeout. Both are a database too busy for the moment (seen at load average
// 28: a job's update answered "Something went wrong on the server"); the transaction was rolled back,
// so the same request may simply be sent again. P2028's other cases (a transaction not found) stay 500s.
const PRISMA_TX_TIMEOUT = /Unable to start a transaction in the given time|expired transaction|timeout for this transaction/;
const PG_CONNECTION_LOST = new Set([
  "Connection terminated unexpectedly",
  "Client has encountered a connection error and is not queryable",
]);

/**
 * Is this error the database being away (restarting, stopped, unreachable, or too busy to give a
 * transaction in time) rather than a fault of the
 * request or the code? Callers answer 503 with Retry-After: the same request will work once it is back.
 */
export function isDatabaseUnavailable(e: unknown, depth = 0): boolean {
  if (!e || typeof e !== "object" || depth > 4) return false;
  const err = e as {
    name?: unknown;
    code?: unknown;
    kind?: unknown;
    originalCode?: unknown;
    severity?: unknown;
    meta?: { driverAdapterError?: unknown };
    cause?: unknown;
  };
  if (err.name === "PrismaClientInitializationError") return true;
  if (err.code === "P2028" && e instanceof Error && PRISMA_TX_TIMEOUT.test(e.message)) return true;
  if (typeof err.code === "string" && (PRISMA_UNAVAILABLE.has(err.code) || NODE_UNAVAILABLE.has(err.code))) return true;
  // A driver adapter's error (pg): its cause says what the server or the socket did.
  if (typeof err.kind === "string" && ADAPTER_UNAVAILABLE.has(err.kind)) return true;
  if (err.kind === "postgres" && typeof err.code === "string" && PG_UNAVAILABLE.test(err.code)) return true;
  if (typeof err.originalCode === "string" && PG_UNAVAILABLE.test(err.originalCode)) return true;
  // node-postgres used directly (the agents' LISTEN connection): the server's refusal, with its SQLSTATE.
  if (typeof err.severity === "string" && typeof err.code === "string" && PG_UNAVAILABLE.test(err.code)) return true;
  if (err.code === undefined && e instanceof Error && PG_CONNECTION_LOST.has(e.message)) return true;
  return isDatabaseUnavailable(err.meta?.driverAdapterError, depth + 1) || isDatabaseUnavailable(err.cause, depth + 1);
}

/** What a caller is told when the database is away (REST, tRPC, the agent protocol). */
export const DATABASE_UNAVAILABLE_SENTENCE = `The database cannot answer right now (it may be restarting or too busy); try again in ${DATABASE_RETRY_AFTER_SEC} s.`;

/**
 * The fields of the unique constraint a write broke (Prisma's P2002), or null for any other error. Use
 * cases look for a duplicate before they write; this is the race they cannot see: two requests that
 * create the same user or cluster at the same moment. Callers answer 409 like any other duplicate.
 */
export function uniqueViolationFields(e: unknown): string[] | null {
  if (!e || typeof e !== "object" || (e as { code?: unknown }).code !== "P2002") return null;
  const meta = (e as { meta?: { target?: unknown; driverAdapterError?: { cause?: { constraint?: { fields?: unknown } } } } })
    .meta;
  const fields = meta?.driverAdapterError?.cause?.constraint?.fields ?? meta?.target;
  return Array.isArray(fields) ? fields.filter((f): f is string => typeof f === "string") : [];
}

/** What a caller is told when a write lost that race: the field (the last of the key, e.g. a name among its siblings). */
export function duplicateSentence(fields: readonly string[]): string {
  const field = fields.at(-1);
  return field
    ? `${field}: this ${field} is already taken (by another request at the same moment); nothing was changed`
    : "This already exists (made by another request at the same moment); nothing was changed";
}
