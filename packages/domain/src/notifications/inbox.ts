import type { PrismaClient } from "@tranche/db";
import type { NotificationView } from "@tranche/contracts";
import type { Actor } from "../auth/actor";
import { webhookNotSentWords } from "./webhook-disabled";

/**
 * A user's inbox. Notifications are written by database triggers from their jobs' events (see the
 * Notification model): starts, preemption warnings, ends, failures, retries, and squatting flags of jobs
 * they own or whose budget they manage. Each user reads and marks only their own.
 */
export async function listNotifications(
  prisma: PrismaClient,
  actor: Actor,
  opts: { unread?: boolean; limit?: number } = {},
): Promise<{ notifications: NotificationView[]; unread: number }> {
  const [rows, unread] = await Promise.all([
    prisma.notification.findMany({
      where: { userId: actor.id, ...(opts.unread ? { readAt: null } : {}) },
      orderBy: { id: "desc" },
      take: Math.max(1, Math.min(opts.limit ?? 100, 500)),
    }),
    unreadCount(prisma, actor),
  ]);
  return {
    notifications: rows.map((n) => ({
      id: String(n.id),
      kind: n.kind,
      jobId: n.jobId,
      title: n.title,
      sentence: n.sentence,
      createdAt: n.createdAt.toISOString(),
      read: n.readAt !== null,
      details: (n.details ?? {}) as Record<string, unknown>,
      webhookNotSent: webhookNotSentWords(n.webhookState),
    })),
    unread,
  };
}

export async function unreadCount(prisma: PrismaClient, actor: Actor): Promise<number> {
  return prisma.notification.count({ where: { userId: actor.id, readAt: null } });
}

/** Mark some (by id) or all of the caller's notifications read; others' ids are ignored. */
export async function markNotificationsRead(prisma: PrismaClient, actor: Actor, ids?: string[]): Promise<{ marked: number }> {
  const r = await prisma.notification.updateMany({
    where: { userId: actor.id, readAt: null, ...(ids ? { id: { in: ids.map((i) => BigInt(i)) } } : {}) },
    data: { readAt: new Date() },
  });
  return { marked: r.count };
}
