import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { ZodError } from "zod";
import type { PrismaClient } from "@tranche/db";
import { DomainError, type Actor, type DomainErrorCode, type Role } from "@tranche/domain";

export type { Role };
/** The signed-in user, resolved by the adapter from a better-auth session (or a bearer token). */
export type SessionUser = Actor;

export interface Context {
  prisma: PrismaClient;
  user: SessionUser | null;
  /** The web app's origin as the browser sees it (set-password links point there). */
  origin?: string;
}

const isDomainError = (e: unknown): e is DomainError =>
  e instanceof DomainError || (e instanceof Error && e.name === "DomainError");

const t = initTRPC.context<Context>().create({
  transformer: superjson,
  errorFormatter({ shape, error }) {
    // Zod issues and the field at fault travel to the client so forms show the specific message.
    const cause = error.cause;
    return {
      ...shape,
      data: {
        ...shape.data,
        zodIssues: cause instanceof ZodError ? cause.issues.map((i) => ({ path: i.path.join("."), message: i.message })) : null,
        field: isDomainError(cause) ? (cause.field ?? null) : null,
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
  return result;
});

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
        message: `This needs the ${roles.map((r) => r.toLowerCase()).join(" or ")} role; you are signed in as a ${ctx.user.role.toLowerCase()}.`,
      });
    return next();
  });
}
