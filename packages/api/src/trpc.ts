import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { ZodError } from "zod";
import type { PrismaClient } from "@tranche/db";

export type Role = "RESEARCHER" | "MANAGER" | "OPERATOR" | "ADMIN";
export interface SessionUser {
  id: string;
  email: string;
  name: string;
  role: Role;
}

export interface Context {
  prisma: PrismaClient;
  user: SessionUser | null;
}

const t = initTRPC.context<Context>().create({
  transformer: superjson,
  errorFormatter({ shape, error }) {
    // Zod issues travel to the client so forms can show the specific field error.
    return {
      ...shape,
      data: { ...shape.data, zodIssues: error.cause instanceof ZodError ? error.cause.issues : null },
    };
  },
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure;

/** Every procedure past this point knows who is calling; the UI hiding a button is not a check. */
export const authedProcedure = t.procedure.use(({ ctx, next }) => {
  if (!ctx.user) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in first." });
  return next({ ctx: { ...ctx, user: ctx.user } });
});
