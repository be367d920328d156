import type { TRPCRouterRecord } from "@trpc/server";
import { listNotificationsInput, markNotificationsReadInput, setWebhookInput } from "@tranche/contracts";
import { getWebhook, listNotifications, markNotificationsRead, newWebhookSecret, setWebhook, unreadCount } from "@tranche/domain";
import { authedProcedure } from "../trpc";

/** The caller's own inbox and webhook. */
export const notificationRouter = {
  list: authedProcedure
    .input(listNotificationsInput.optional())
    .query(({ ctx, input }) => listNotifications(ctx.prisma, ctx.user, input ?? {})),
  unread: authedProcedure.query(({ ctx }) => unreadCount(ctx.prisma, ctx.user)),
  markRead: authedProcedure
    .input(markNotificationsReadInput)
    .mutation(({ ctx, input }) => markNotificationsRead(ctx.prisma, ctx.user, input.ids)),
  webhook: authedProcedure.query(({ ctx }) => getWebhook(ctx.prisma, ctx.user)),
  setWebhook: authedProcedure.input(setWebhookInput).mutation(({ ctx, input }) => setWebhook(ctx.prisma, ctx.user, input.url)),
  newWebhookSecret: authedProcedure.mutation(({ ctx }) => newWebhookSecret(ctx.prisma, ctx.user)),
} satisfies TRPCRouterRecord;
