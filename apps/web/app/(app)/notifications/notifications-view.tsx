"use client";
import Link from "next/link";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTRPC } from "../../../lib/trpc";
import { Empty, PageHead, ago, useNow } from "../../../components/ui";
import { errorText } from "../../../lib/error-text";
import type { NotificationKind, WebhookSetView } from "@tranche/contracts";

const KIND_LABEL: Record<NotificationKind, string> = {
  STARTED: "started",
  PREEMPTION_WARNING: "preemption warning",
  FINISHED: "finished",
  FAILED: "failed",
  PREEMPTED: "preempted",
  KILLED: "killed at its limit",
  LOST: "lost with its node",
  RETRIED: "retried",
  SQUATTING: "idle GPUs",
  CANCELLED: "cancelled",
  NODE_RETIRED: "its node retired",
};

/** The inbox (newest first, unread marked) and the webhook the same notifications are POSTed to. */
export function NotificationsView() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const now = useNow(30_000);
  const list = useQuery({ ...trpc.notification.list.queryOptions({ limit: 200 }), refetchInterval: 10_000 });
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.notification.pathKey() });
  const mark = useMutation(trpc.notification.markRead.mutationOptions({ onSuccess: () => void refresh() }));
  const items = list.data?.notifications ?? [];
  return (
    <>
      <PageHead
        title="Notifications"
        lede="Your jobs' starts, preemption warnings, ends and failures (a job array's start and end once for the whole array), and jobs flagged as idle on their GPUs in budgets you own or manage."
      >
        <button className="btn" disabled={mark.isPending || (list.data?.unread ?? 0) === 0} onClick={() => mark.mutate({})}>
          Mark all read
        </button>
      </PageHead>
      <div className="grid-2">
        <section className="panel">
          <div className="panel-head">
            <h2>Inbox</h2>
            <span className="small muted">{list.data ? `${list.data.unread} unread` : ""}</span>
          </div>
          {!list.data ? (
            <div className="panel-body">
              <span className="skeleton" style={{ display: "block", height: "4rem" }} aria-label="Loading" />
            </div>
          ) : items.length === 0 ? (
            <Empty title="Nothing yet">You will hear here when a job of yours starts, is about to be preempted, or ends.</Empty>
          ) : (
            <ul className="notification-list" data-testid="notifications">
              {items.map((n) => (
                <li key={n.id} className={n.read ? "read" : "unread"} data-testid="notification">
                  <div className="row" style={{ justifyContent: "space-between" }}>
                    <strong>
                      {n.read ? null : <span className="sr-only">Unread: </span>}
                      {n.jobId !== null ? <Link href={`/jobs/${n.jobId}`}>{n.title}</Link> : n.title}
                    </strong>
                    <span className="small muted">
                      {KIND_LABEL[n.kind as NotificationKind] ?? n.kind.toLowerCase()} · {ago(n.createdAt, now)}
                    </span>
                  </div>
                  <div className="small">{n.sentence}</div>
                  {n.webhookNotSent ? <div className="small muted">{n.webhookNotSent}</div> : null}
                  {n.read ? null : (
                    <button className="linkbtn small" onClick={() => mark.mutate({ ids: [n.id] })}>
                      Mark read
                    </button>
                  )}
                </li>
              ))}
            </ul>
          )}
        </section>
        <WebhookPanel />
      </div>
    </>
  );
}

function WebhookPanel() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const current = useQuery(trpc.notification.webhook.queryOptions());
  const [url, setUrl] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  // A secret just made: shown here until the page is left, never again (the server keeps no way to show it).
  const [secret, setSecret] = useState<string | null>(null);
  useEffect(() => setUrl(current.data?.url ?? ""), [current.data?.url]);
  const done = {
    onSuccess: (r: WebhookSetView) => {
      setError(null);
      setSaved(true);
      setSecret(r.secret);
      void qc.invalidateQueries({ queryKey: trpc.notification.webhook.queryKey() });
    },
    onError: (e: unknown) => setError(errorText(e)),
  };
  const save = useMutation(trpc.notification.setWebhook.mutationOptions(done));
  const rotate = useMutation(trpc.notification.newWebhookSecret.mutationOptions(done));
  const busy = save.isPending || rotate.isPending;
  return (
    <section className="panel">
      <div className="panel-head">
        <h2>Webhook</h2>
      </div>
      <form
        className="panel-body stack"
        onSubmit={(e) => {
          e.preventDefault();
          setSaved(false);
          setSecret(null);
          save.mutate({ url: url.trim() === "" ? null : url.trim() });
        }}
      >
        <p className="small">
          Optional: each notification is also sent as JSON (POST) to this address, for a chat bot or your own scripts. A failing
          address is tried three times and never delays the scheduler. Each POST is signed (Standard Webhooks headers), so your
          receiver can tell it came from Tranche: saving the address makes a new signing secret.
        </p>
        <label className="field">
          <span>Address</span>
          <input
            className="input"
            placeholder="https://hooks.example.com/tranche"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
          />
        </label>
        {secret !== null ? (
          <div className="stack" data-testid="webhook-secret">
            <span className="small">
              Signing secret, shown only now: copy it to your receiver. Saving again or asking for a new one replaces it.
            </span>
            <code className="small" style={{ userSelect: "all", wordBreak: "break-all" }}>
              {secret}
            </code>
          </div>
        ) : current.data?.url && !current.data.signed ? (
          <p className="small">Its POSTs are not signed yet: make a signing secret for your receiver to check them with.</p>
        ) : null}
        <div className="row">
          {/* "Turn off" only when one is set: with none, an empty address has nothing to turn off. */}
          <button className="btn primary" disabled={busy || (url.trim() === "" && !current.data?.url)}>
            {url.trim() === "" && current.data?.url ? "Turn off" : "Save"}
          </button>
          {current.data?.url ? (
            <button
              type="button"
              className="btn"
              disabled={busy}
              onClick={() => {
                setSaved(false);
                setSecret(null);
                rotate.mutate();
              }}
            >
              {current.data.signed ? "New signing secret" : "Make a signing secret"}
            </button>
          ) : null}
          {saved && !error ? <span className="small">Saved.</span> : null}
          {error ? (
            <span className="field-error" role="alert">
              {error}
            </span>
          ) : null}
        </div>
      </form>
    </section>
  );
}
