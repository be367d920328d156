import { TRPCError } from "@trpc/server";
import { whatIfInput } from "@tranche/contracts";
import { previewAllocations } from "@tranche/domain";
import { roleProcedure } from "../trpc";
import { TooManyRequests } from "../too-many-requests";
import { inWhatIfTurn } from "../what-if-turn";

/**
 * budget.whatIf: a manager's preview of an allocation change (two scheduling cycles in this process),
 * one at a time per person and a few per minute; past that TOO_MANY_REQUESTS with a Retry-After.
 */
export const whatIfProcedure = roleProcedure("MANAGER")
  .input(whatIfInput)
  .query(async ({ ctx, input }) => {
    try {
      return await inWhatIfTurn(ctx.whatIfLimiter, ctx.user.id, () => previewAllocations(ctx.prisma, ctx.user, input));
    } catch (e) {
      if (e instanceof TooManyRequests) throw new TRPCError({ code: "TOO_MANY_REQUESTS", message: e.message, cause: e });
      throw e;
    }
  });
