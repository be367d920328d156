import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { ZodError } from "zod";
import { fieldIssues, issuesSentence } from "@tranche/contracts";
import {
  DATABASE_RETRY_AFTER_SEC,
  DATABASE_UNAVAILABLE_SENTENCE,
  duplicateSentence,
  isDatabaseUnavailable,
  uniqueViolationFields,
  type PrismaClient,
} from "@tranche/db";
import { DomainError, roleWithArticle, type Actor, type DomainErrorCode, type Role, type WhatIfLimiter } from "@tranche/domain";
import { TooManyRequests } from "./too-many-requests";

export type { Role };
/** The signed-in user, resolved by the adapter from a better-auth session (or a bearer token). */
export type SessionUser = Actor;

export interface Context {
  prisma: PrismaClient;
  user: SessionUser | null;
  /** The signed-in session the request carries (the web app's cookie); none for API tokens and tests. */
  sessionId?: string | null;
  /** The web app's origin as the browser sees it (set-password links point there). */
  origin?: string;
  /** What-if previews' limiter; unset: the web process's own (tests bring one with their clock). */
  whatIfLimiter?: WhatIfLimiter;
}

const isDomainError = (e: unknown): e is DomainError =>
  e instanceof DomainError || (e instanceof Error && e.name === "DomainError");

/** A server failure's stack (sent in development) names files and the database's own words: keep it out. */
function withoutStack<D extends { stack?: string }>(data: D): Omit<D, "stack"> {
  const copy: Partial<D> = { ...data };
  delete copy.stack;
  return copy as Omit<D, "stack">;
}

const t = initTRPC.context<Context>().create({
  transformer: superjson,
  errorFormatter({ shape, error, path }) {
    // Zod issues and the field at fault travel to the client so forms show the specific message; the
    // message itself is plain words: one sentence per field for bad input, and for a failure of the
    // server (a database error...) a fixed sentence: its own text stays in the server's log.
    const cause = error.cause;
    const issues = cause instanceof ZodError ? fieldIssues(cause) : null;
    const internal = error.code === "INTERNAL_SERVER_ERROR";
    if (internal) console.error("tRPC", path, cause ?? error);
    return {
      ...shape,
      message: internal
        ? "Something went wrong on the server; nothing was changed."
        : issues
          ? issuesSentence(issues)
          : shape.message,
      data: {
        ...(internal ? withoutStack(shape.data) : shape.data),
        zodIssues: issues,
        field: isDomainError(cause) ? (cause.field ?? null) : null,
        // A lab file's problems, each at its place in the file (users[2].email).
        issues: isDomainError(cause) ? (cause.issues ?? null) : null,
      },
    };
  },
});

const TRPC_CODE: Record<DomainErrorCode, TRPCError["code"]> = {
  UNAUTHORIZED: "UNAUTHORIZED",
  FORBIDDEN: "FORBIDDEN",
  NOT_FOUND: "NOT_FOUND",
  BAD_INPUT: "BAD_REQUEST",
  CONFLICT: "CONFLICT",
};

/** Domain errors become tRPC errors with the same message (and their field). */
const mapDomainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && isDomainError(result.error.cause)) {
    const cause = result.error.cause;
    throw new TRPCError({ code: TRPC_CODE[cause.code], message: cause.message, cause });
  }
  // Too fast (API tokens made an hour): 429, and trpcResponseMeta says when to try again.
  if (!result.ok && result.error.cause instanceof TooManyRequests)
    throw new TRPCError({ code: "TOO_MANY_REQUESTS", message: result.error.cause.message, cause: result.error.cause });
  // A duplicate made by a concurrent request (the use-case's own check could not see it): 409, as any duplicate.
  const duplicate = result.ok ? null : uniqueViolationFields(result.error.cause);
  if (duplicate) throw new TRPCError({ code: "CONFLICT", message: duplicateSentence(duplicate) });
  // The database away (restarting): 503, so the page says "try again" instead of "something went wrong".
  if (!result.ok && isDatabaseUnavailable(result.error.cause)) {
    console.error("tRPC: the database cannot be reached:", result.error.cause?.message);
    throw new TRPCError({ code: "SERVICE_UNAVAILABLE", message: DATABASE_UNAVAILABLE_SENTENCE });
  }
  return result;
});

/**
 * HTTP response meta for the tRPC route: a 503 (the database away) and a 429 (too fast) say when to
 * try again; in a batch, the longest wait.
 */
export function trpcResponseMeta({ errors }: { errors: readonly TRPCError[] }): { headers?: Headers } {
  const waits = errors.flatMap((e) =>
    e.code === "SERVICE_UNAVAILABLE"
      ? [DATABASE_RETRY_AFTER_SEC]
      : e.code === "TOO_MANY_REQUESTS" && e.cause instanceof TooManyRequests
        ? [e.cause.retryAfterSec]
        : [],
  );
  return waits.length ? { headers: new Headers({ "retry-after": String(Math.max(...waits)) }) } : {};
}

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(mapDomainErrors);

/** Every procedure past this point knows who is calling; the UI hiding a button is not a check. */
export const authedProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.user) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in first." });
  return next({ ctx: { ...ctx, user: ctx.user } });
});

/** Procedures for some roles only (admins pass every role check). */
export function roleProcedure(...roles: Role[]) {
  return authedProcedure.use(({ ctx, next }) => {
    if (ctx.user.role !== "ADMIN" && !roles.includes(ctx.user.role))
      throw new TRPCError({
        code: "FORBIDDEN",
        message: `This needs the ${roles.map((r) => r.toLowerCase()).join(" or ")} role; you are signed in as ${roleWithArticle(ctx.user.role)}.`,
      });
    return next();
  });
}
