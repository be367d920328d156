"use client";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../lib/trpc";
import { ICONS } from "./icons";

/** The inbox in the navigation, with the number of unread notifications (refreshed every 15 s). */
export function NotificationBell({ current }: { current: boolean }) {
  const trpc = useTRPC();
  const unread = useQuery({ ...trpc.notification.unread.queryOptions(), refetchInterval: 15_000 });
  const n = unread.data ?? 0;
  return (
    <Link href="/notifications" aria-current={current ? "page" : undefined} data-testid="notification-bell">
      <span className="ico" aria-hidden>
        {ICONS.bell}
      </span>
      Notifications
      {n > 0 ? (
        <span className="badge plain unread-count" aria-label={`${n} unread`} data-testid="unread-count">
          {n > 99 ? "99+" : n}
        </span>
      ) : null}
    </Link>
  );
}
