"use client";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useMemo, useRef, useState } from "react";
import { formatDuration } from "@tranche/contracts";
import type { QueuePendingRow, QueueRunningRow, QueueRatio, QueueView } from "@tranche/domain";
import { useTRPC } from "../../../../lib/trpc";
import { Empty, LaneBadge, ago, until, useNow } from "../../../../components/ui";

const ROW = 50;
const HEAD = 200;

function PendingList({ rows, now, me }: { rows: QueuePendingRow[]; now: number; me: string | undefined }) {
  const parent = useRef<HTMLDivElement>(null);
  // initialRect lets the server render the first screenful (the list is 560 px high).
  const v = useVirtualizer({
    count: rows.length,
    getScrollElement: () => parent.current,
    estimateSize: () => ROW,
    overscan: 12,
    initialRect: { width: 1000, height: 560 },
  });
  if (rows.length === 0) return <Empty title="No pending jobs">Every job on this cluster is running or done.</Empty>;
  return (
    <>
      <div className="vhead q-cols">
        <span className="num">#</span>
        <span>Job</span>
        <span>Budget · user</span>
        <span>Lane</span>
        <span className="num">GPUs</span>
        <span>Waiting</span>
        <span>Reason</span>
      </div>
      <div
        className="vlist"
        ref={parent}
        data-testid="pending-list"
        role="table"
        aria-label="Pending jobs"
        aria-rowcount={rows.length}
      >
        <div style={{ height: v.getTotalSize(), position: "relative" }}>
          {v.getVirtualItems().map((it) => {
            const r = rows[it.index]!;
            return (
              <div
                key={r.id}
                role="row"
                data-testid={`pending-${r.id}`}
                className="vrow q-cols"
                style={{ top: it.start, height: ROW, background: r.userId === me ? "#f7f9ff" : undefined }}
              >
                <span className="num muted">{r.state === "HELD" ? "—" : (r.position ?? "·")}</span>
                <span className="ellipsis">
                  <Link href={`/jobs/${r.id}`}>#{r.id}</Link>
                </span>
                <span className="ellipsis small" title={`${r.budget} · ${r.user}`}>
                  <span style={{ fontWeight: 600 }}>{r.budget.split("/").slice(1).join("/")}</span>
                  <span className="muted"> · {r.user}</span>
                </span>
                <span>
                  <LaneBadge lane={r.lane} />
                </span>
                <span className="num">{r.gpus}</span>
                <span className="small muted nowrap">{ago(r.queuedAt, now).replace(" ago", "")}</span>
                <span className="sentence-cell" title={r.reasonSentence ?? undefined}>
                  {r.reasonCode ? <span className="reason-code">{r.reasonCode}</span> : null}{" "}
                  {r.reasonSentence ?? "New: waiting for the next scheduling cycle."}
                </span>
              </div>
            );
          })}
        </div>
      </div>
    </>
  );
}

function RunningList({ rows, now }: { rows: QueueRunningRow[]; now: number }) {
  const parent = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({ count: rows.length, getScrollElement: () => parent.current, estimateSize: () => ROW, overscan: 10 });
  if (rows.length === 0) return <Empty title="Nothing running">Started jobs appear here with their protection countdown.</Empty>;
  return (
    <>
      <div className="vhead r-cols">
        <span>Job</span>
        <span>Budget · user</span>
        <span>Lane</span>
        <span className="num">GPUs</span>
        <span>Running for</span>
        <span>Contract</span>
        <span>Nodes</span>
      </div>
      <div className="vlist" ref={parent} style={{ height: Math.min(420, rows.length * ROW + 2) }} data-testid="running-list">
        <div style={{ height: v.getTotalSize(), position: "relative" }}>
          {v.getVirtualItems().map((it) => {
            const r = rows[it.index]!;
            const left = r.protectedUntil ? Date.parse(r.protectedUntil) - now : 0;
            return (
              <div key={r.id} className="vrow r-cols" style={{ top: it.start, height: ROW }} data-testid={`running-${r.id}`}>
                <span>
                  <Link href={`/jobs/${r.id}`}>#{r.id}</Link>
                </span>
                <span className="ellipsis small">
                  <span style={{ fontWeight: 600 }}>{r.budget.split("/").slice(1).join("/")}</span>
                  <span className="muted"> · {r.user}</span>
                </span>
                <span>
                  <LaneBadge lane={r.lane} />
                </span>
                <span className="num">{r.gpus}</span>
                <span className="small nowrap">
                  {r.startedAt ? formatDuration(Math.max(0, Math.round((now - Date.parse(r.startedAt)) / 1000))) : "—"}
                </span>
                <span className="nowrap">
                  {r.state === "STOPPING" ? (
                    <span className="badge b-STOPPING">stopping · {until(r.graceUntil, now)}</span>
                  ) : left > 0 ? (
                    <span className="badge b-protected" title="Protected: not preempted before this ends">
                      protected · {until(r.protectedUntil, now)}
                    </span>
                  ) : (
                    <span className="badge b-interruptible">interruptible</span>
                  )}
                </span>
                <span className="small mono ellipsis" title={r.nodes.join(", ")}>
                  {r.nodes.join(", ") || "—"}
                </span>
              </div>
            );
          })}
        </div>
      </div>
    </>
  );
}

function Ratios({ ratios }: { ratios: QueueRatio[] }) {
  if (ratios.length === 0)
    return <div className="panel-body muted small">Fair-share ratios appear after the first scheduling cycle.</div>;
  const max = Math.max(2, ...ratios.map((r) => (r.ratio !== null && r.depth > 0 ? r.ratio : 0)));
  return (
    <div className="panel-body" style={{ maxHeight: 640, overflow: "auto" }}>
      {ratios
        .filter((r) => r.depth > 0)
        .map((r) => (
          <div
            key={r.treeNodeId}
            className="ratio-row"
            title={`usage ${Math.round(r.usageGpuSeconds / 3600)} GPU·h / entitlement ${Math.round(r.entitlementGpuSeconds / 3600)} GPU·h`}
          >
            <span className="ellipsis" style={{ paddingLeft: (r.depth - 1) * 14, fontWeight: r.depth === 1 ? 650 : 400 }}>
              {r.name}
            </span>
            <span className={`meter ${r.ratio !== null && r.ratio > 1 ? "over" : ""}`}>
              <span style={{ width: `${r.ratio === null ? 100 : Math.min(100, (r.ratio / max) * 100)}%` }} />
              <i className="mark" style={{ left: `${(1 / max) * 100}%` }} />
            </span>
            <span className="num small">{r.ratio === null ? "∞" : r.ratio.toFixed(2)}</span>
          </div>
        ))}
      <p className="small muted" style={{ marginBottom: 0 }}>
        Ratio = usage ÷ entitlement over the last 7 days; the mark is 1.0 (exactly its share). Lower goes first.
      </p>
    </div>
  );
}

export function LiveQueue({ cluster, initial }: { cluster: string; initial: QueueView | null }) {
  const trpc = useTRPC();
  const now = useNow(1000);
  const clusters = useQuery(trpc.cluster.list.queryOptions());
  const me = useQuery(trpc.me.get.queryOptions());
  // The head of the order (rendered on the server for the first paint) is polled every 1.5 s: it is what
  // each cycle changes, with the counts, running jobs and ratios. The rest of a long queue (10,000
  // pending is several MB) is refreshed every 10 s, so a busy server is not asked for it back to back.
  const head = useQuery({
    ...trpc.queue.get.queryOptions({ cluster, limit: HEAD }),
    refetchInterval: 1500,
    ...(initial ? { initialData: initial, initialDataUpdatedAt: Date.now() } : {}),
  });
  // Enabled after the head arrives: fired together, tRPC would batch both into one slow response.
  const full = useQuery({
    ...trpc.queue.get.queryOptions({ cluster }),
    refetchInterval: 10_000,
    enabled: head.isSuccess && head.data.complete === false,
  });
  const q = head;
  const allPending = useMemo(() => {
    const top = head.data?.pending ?? [];
    if (!full.data || head.data?.complete) return top;
    const seen = new Set(top.map((r) => r.id));
    return [...top, ...full.data.pending.filter((r) => !seen.has(r.id) && (r.position === null || r.position > top.length))];
  }, [head.data, full.data]);
  const [tab, setTab] = useState<"pending" | "running">("pending");
  const [filter, setFilter] = useState("");
  const pending = useMemo(() => {
    const rows = allPending;
    const f = filter.trim().toLowerCase();
    return f
      ? rows.filter((r) => r.budget.toLowerCase().includes(f) || r.user.toLowerCase().includes(f) || String(r.id) === f)
      : rows;
  }, [allPending, filter]);
  const totalPending = q.data ? q.data.counts.pending + q.data.counts.held : 0;

  return (
    <>
      <div className="page-head">
        <div>
          <h1 className="row" style={{ gap: "0.6rem" }}>
            Live queue <span className="pulse" title="updates every 1.5 s" />
          </h1>
          <p className="lede">
            Pending jobs in the scheduler&apos;s order, with the reason it gave each one at the latest cycle.
          </p>
        </div>
        <nav className="seg" aria-label="Clusters">
          {clusters.data?.map((c) => (
            <Link key={c.id} href={`/queue/${c.name}`} aria-current={c.name === cluster ? "page" : undefined}>
              {c.name} <span className="faint">{c.gpuType}</span>
            </Link>
          ))}
        </nav>
      </div>
      {q.isError ? <div className="alert bad">{q.error.message}</div> : null}
      {q.data ? (
        <>
          <div className="tiles">
            <div className="tile">
              <div className="tile-label">Pending</div>
              <div className="tile-value" data-testid="pending-count">
                {q.data.counts.pending.toLocaleString("en-US")}
              </div>
              <div className="tile-sub">
                {q.data.counts.pendingGpus.toLocaleString("en-US")} GPUs requested
                {q.data.counts.held ? ` · ${q.data.counts.held} held` : ""}
              </div>
            </div>
            <div className="tile">
              <div className="tile-label">Running</div>
              <div className="tile-value">{q.data.counts.running}</div>
              <div className="tile-sub">
                {q.data.counts.runningGpus} of {q.data.cluster.gpus} GPUs
              </div>
            </div>
            <div className="tile">
              <div className="tile-label">Ready capacity</div>
              <div className="tile-value">{q.data.cluster.readyGpus}</div>
              <div className="tile-sub">GPUs on READY nodes</div>
            </div>
            <div className="tile">
              <div className="tile-label">Latest cycle</div>
              <div className="tile-value" style={{ fontSize: "1.2rem", paddingTop: "0.3rem" }}>
                {q.data.cycle ? ago(q.data.cycle.at, now) : "none yet"}
              </div>
              <div className="tile-sub">
                {q.data.cycle
                  ? `${q.data.cycle.started} started · ${q.data.cycle.preempted} preempted · ${Math.round(q.data.cycle.durationMs)} ms`
                  : "the worker has not run"}
              </div>
            </div>
          </div>
          <div className="side-grid">
            <section className="panel">
              <div className="panel-head" style={{ paddingBottom: 0, borderBottom: 0 }}>
                <div className="tabs" role="tablist" style={{ marginBottom: 0, flex: 1 }}>
                  <button role="tab" aria-selected={tab === "pending"} onClick={() => setTab("pending")}>
                    Pending ({totalPending.toLocaleString("en-US")})
                  </button>
                  <button role="tab" aria-selected={tab === "running"} onClick={() => setTab("running")}>
                    Running ({q.data.running.length})
                  </button>
                </div>
                {tab === "pending" ? (
                  <input
                    className="input"
                    style={{ maxWidth: 220, minHeight: 32 }}
                    placeholder="Filter by budget, user, #id"
                    value={filter}
                    onChange={(e) => setFilter(e.target.value)}
                    aria-label="Filter pending jobs"
                  />
                ) : null}
              </div>
              {tab === "pending" ? (
                <PendingList rows={pending} now={now} me={me.data?.id} />
              ) : (
                <RunningList rows={q.data.running} now={now} />
              )}
            </section>
            <section className="panel">
              <div className="panel-head">
                <h2>Fair-share ratios</h2>
              </div>
              <Ratios ratios={q.data.ratios} />
            </section>
          </div>
        </>
      ) : q.isPending ? (
        <p className="muted">Loading the {cluster} queue…</p>
      ) : null}
    </>
  );
}
