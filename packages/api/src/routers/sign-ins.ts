import type { TRPCRouterRecord } from "@trpc/server";
import { signInSessionInput, userSignInSessionInput, userSignInsInput } from "@tranche/contracts";
import { endOtherSignInSessions, endSignInSession, listSignInSessions } from "@tranche/domain";
import { authedProcedure, roleProcedure } from "../trpc";

// Where a person is signed in (their browsers' sessions), to end one or all but this one. Another
// user's: admins only, their role checked before the input is read (the domain checks again).
const admin = roleProcedure("ADMIN");

export const signInsRouter = {
  mine: authedProcedure.query(({ ctx }) => listSignInSessions(ctx.prisma, ctx.user, { currentId: ctx.sessionId ?? null })),
  end: authedProcedure
    .input(signInSessionInput)
    .mutation(({ ctx, input }) => endSignInSession(ctx.prisma, ctx.user, input.id).then(() => ({ ended: 1 }))),
  endOthers: authedProcedure.mutation(async ({ ctx }) => ({
    ended: await endOtherSignInSessions(ctx.prisma, ctx.user, { currentId: ctx.sessionId ?? null }),
  })),
  ofUser: admin
    .input(userSignInsInput)
    .query(({ ctx, input }) =>
      listSignInSessions(ctx.prisma, ctx.user, { userId: input.userId, currentId: ctx.sessionId ?? null }),
    ),
  endOfUser: admin
    .input(userSignInSessionInput)
    .mutation(({ ctx, input }) =>
      endSignInSession(ctx.prisma, ctx.user, input.id, { userId: input.userId }).then(() => ({ ended: 1 })),
    ),
  endAllOfUser: admin.input(userSignInsInput).mutation(async ({ ctx, input }) => ({
    ended: await endOtherSignInSessions(ctx.prisma, ctx.user, { userId: input.userId, currentId: ctx.sessionId ?? null }),
  })),
} satisfies TRPCRouterRecord;
