import type { z } from "zod";
import { LIMITS, formatBytes, readBodyText, strictObject, type ApiError } from "@tranche/contracts";
import { DATABASE_RETRY_AFTER_SEC } from "@tranche/db";
import { DomainError } from "@tranche/domain";

// Reading and writing the JSON of REST /api/v1 (shared by the job routes and the admin routes).

const STATUS: Record<ApiError["error"]["code"], number> = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  BAD_INPUT: 400,
  CONFLICT: 409,
  TOO_LARGE: 413,
  TOO_MANY_REQUESTS: 429,
  UNAVAILABLE: 503,
  INTERNAL: 500,
};

/**
 * JSON answers. Small ones (a submit, a page of jobs) go out uncompressed: "no-transform" tells the web
 * server's gzip to leave them alone, which costs more CPU per request than it saves on the wire; large
 * ones (a 10,000-job queue) are still compressed.
 */
export const json = (body: unknown, status = 200, extraHeaders: Record<string, string> = {}) => {
  const text = JSON.stringify(body);
  return new Response(text, {
    status,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "cache-control": text.length < 65_536 ? "no-store, no-transform" : "no-store",
      ...extraHeaders,
    },
  });
};

export function errorResponse(
  code: ApiError["error"]["code"],
  message: string,
  issues?: { path: string; message: string }[],
): Response {
  const body: ApiError = { error: { code, message, ...(issues ? { issues } : {}) } };
  return json(body, STATUS[code], code === "UNAVAILABLE" ? { "retry-after": String(DATABASE_RETRY_AFTER_SEC) } : {});
}

/**
 * A segment of a URL path as the routes read it. Next decodes each segment before the handler sees it,
 * so %00 arrives as a NUL, which Postgres refuses in text (a lookup by that name failed with 500): every
 * segment is checked here, once for every route, and a NUL is bad input naming the path.
 */
export function pathSegment(segment: string): string {
  if (segment.includes("\u0000"))
    throw new DomainError(
      "BAD_INPUT",
      `The URL path segment '${segment.slice(0, 60).replaceAll("\u0000", "%00")}' must not contain NUL characters (%00)`,
      "path",
    );
  return segment;
}

/**
 * A segment decoded once more (budget paths may come with their slashes encoded: lab%2Fvision).
 * Malformed percent-encoding (%E0%A4%A, a lone %) threw URIError, a 500: it is bad input naming it.
 */
export function decodePathSegment(segment: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    throw new DomainError(
      "BAD_INPUT",
      `The URL path segment '${segment.slice(0, 60)}' is not valid percent-encoding: each % starts %XX, and the bytes form UTF-8`,
      "path",
    );
  }
  return pathSegment(decoded);
}

export function parse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  return schema.parse(value) as z.output<S>;
}

/**
 * A GET's query parameters as text, for the route's strict schema: a parameter it does not take is a
 * 400 naming it, as a bad value is (ignored, `?limit=10` on a list without a limit read as "all of it").
 * A parameter given twice is a 400 naming it (the last one was kept: ?cluster=h100&cluster=b200 answered
 * for b200). Every name is an own property of an object without a prototype, `__proto__` too, so the
 * schema sees it as it sees any other name and refuses it where unknown.
 */
export function queryOf(req: Request): Record<string, string> {
  const q = Object.create(null) as Record<string, string>;
  const params = new URL(req.url).searchParams;
  for (const [name, value] of params) {
    if (Object.hasOwn(q, name)) {
      const times = params.getAll(name).length;
      throw new DomainError("BAD_INPUT", `${name} is given ${times === 2 ? "twice" : `${times} times`}; give it once`, name);
    }
    q[name] = value;
  }
  return q;
}

/** A number parameter's text as a number for the schema to check: "abc" is NaN, "limit must be a number". */
export const queryNumber = (v: string | undefined): number | undefined => (v === undefined ? undefined : Number(v));

/**
 * A true/false parameter: true or 1, false or 0. Other text goes to the schema as it is, which refuses it
 * naming the field ("active must be true or false"), where it used to read as false.
 */
export function queryBoolean(v: string | undefined): boolean | string | undefined {
  if (v === "true" || v === "1") return true;
  if (v === "false" || v === "0") return false;
  return v;
}

/** A list that takes no query parameters (`what`: "the user list's query"): any one is a 400 naming it. */
export function noQuery(req: Request, what: string): void {
  parse(strictObject({}, what), queryOf(req));
}

/** A body over its route's byte limit (LIMITS): answered 413 naming the limit, before it is parsed. */
export class TooLarge extends Error {
  constructor(readonly limit: number) {
    super(`The request body is larger than ${formatBytes(limit)}, the most this endpoint takes; nothing was stored`);
  }
}

/**
 * The JSON body, read up to `limit` bytes (413 past it); `optional`: an empty body reads as {} (every
 * field has a default).
 */
export async function readJson(req: Request, opts: { limit?: number; optional?: boolean } = {}): Promise<unknown> {
  const limit = opts.limit ?? LIMITS.requestBytes;
  const text = await readBodyText(req, limit);
  if (text === null) throw new TooLarge(limit);
  if (!text.trim() && opts.optional) return {};
  if (!text.trim()) throw new DomainError("BAD_INPUT", "The request body is empty; send a JSON object");
  try {
    return JSON.parse(text);
  } catch {
    throw new DomainError("BAD_INPUT", "The request body is not valid JSON");
  }
}
