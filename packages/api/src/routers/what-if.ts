import { TRPCError } from "@trpc/server";
import { whatIfInput } from "@tranche/contracts";
import { createWhatIfLimiter, previewAllocations, whatIfLimitsFromEnv, type WhatIfLimiter } from "@tranche/domain";
import { roleProcedure, type Context } from "../trpc";
import { TooManyRequests } from "../too-many-requests";

let shared: WhatIfLimiter | null = null;
/** This web process's limiter (TRANCHE_WHAT_IF_PER_MINUTE), unless the context brings its own (tests). */
const limiterOf = (ctx: Context): WhatIfLimiter => ctx.whatIfLimiter ?? (shared ??= createWhatIfLimiter(whatIfLimitsFromEnv()));

/**
 * budget.whatIf: a manager's preview of an allocation change (two scheduling cycles in this process),
 * one at a time per person and a few per minute; past that TOO_MANY_REQUESTS with a Retry-After.
 */
export const whatIfProcedure = roleProcedure("MANAGER")
  .input(whatIfInput)
  .query(async ({ ctx, input }) => {
    const turn = limiterOf(ctx).begin(ctx.user.id);
    if (!turn.ok)
      throw new TRPCError({
        code: "TOO_MANY_REQUESTS",
        message: turn.message,
        cause: new TooManyRequests(turn.message, turn.retryAfterSec),
      });
    try {
      return await previewAllocations(ctx.prisma, ctx.user, input);
    } finally {
      turn.done();
    }
  });
