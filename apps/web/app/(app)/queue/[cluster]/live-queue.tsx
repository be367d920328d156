"use client";
import Link from "next/link";
import { keepPreviousData, useQueries, useQuery } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useRef, useState } from "react";
import { expectedStartWords, formatDuration } from "@tranche/contracts/format";
import type { QueuePendingRow, QueueRunningRow, QueueView } from "@tranche/domain";
import { useTRPC } from "../../../../lib/trpc";
import {
  Empty,
  LaneBadge,
  ReasonTag,
  ReasonTimes,
  ago,
  clockAndRelative,
  readable,
  until,
  useNow,
} from "../../../../components/ui";
import { errorText } from "../../../../lib/error-text";
import { Ratios } from "./ratios";
import { plural, promisedText, reasonTimesText, runningTabLabel } from "../../../../lib/words";

const ROW = 50;
/** An opened pending row, until it is measured: it grows to the whole reason, budget path and job name. */
const OPEN_ROW = 150;
/** Rows per request: the head comes with the summary; the virtualized list asks for the pages it shows. */
const PAGE = 100;

/** Budget and user, lane, GPUs: the cells pending and running rows share (full text when expanded). */
function WhoLaneGpus({ r, open = false }: { r: Pick<QueuePendingRow, "budget" | "user" | "lane" | "gpus">; open?: boolean }) {
  return (
    <>
      <span className="q-who small">
        <span className={open ? "wrap" : "ellipsis"} title={r.budget}>
          {r.budget.split("/").slice(1).join("/")}
        </span>
        <span className={open ? "wrap muted" : "ellipsis muted"} title={r.user}>
          {r.user}
        </span>
      </span>
      <span>
        <LaneBadge lane={r.lane} />
      </span>
      <span className="num">{r.gpus}</span>
    </>
  );
}

/** #id with the job's name under it. */
function JobCell({ id, name, open = false, task }: { id: number; name: string; open?: boolean; task?: string | null }) {
  const shown = task ? `${name} · ${task}` : name;
  return (
    <span className="q-who small">
      {/* No prefetch: every row scrolled into view would render a job page on the server. */}
      <Link href={`/jobs/${id}`} prefetch={false} title={shown}>
        #{id}
      </Link>
      <span className={open ? "wrap muted" : "ellipsis muted"} title={shown}>
        {shown}
      </span>
    </span>
  );
}

function PendingRow({
  r,
  index,
  top,
  height,
  now,
  me,
  open,
  onToggle,
  measure,
}: {
  r: QueuePendingRow;
  index: number;
  top: number;
  height: number;
  now: number;
  me: string | undefined;
  open: boolean;
  onToggle: () => void;
  /** The list's measure of an opened row, which takes the height of what it shows. */
  measure?: (el: HTMLDivElement | null) => void;
}) {
  const sentence = r.reasonSentence ? readable(r.reasonSentence) : "New: waiting for the next scheduling cycle.";
  const times = reasonTimesText(r.reasonCode, r.reasonDetails, (iso) => clockAndRelative(iso, now));
  return (
    <div
      role="row"
      data-testid={`pending-${r.id}`}
      data-index={index}
      ref={measure}
      className={`vrow q-cols${open ? " open" : ""}`}
      style={{ top, height: open ? undefined : height, background: r.userId === me ? "#f7f9ff" : undefined }}
    >
      <span className="num muted">{r.state === "HELD" ? "—" : (r.position ?? "·")}</span>
      <JobCell id={r.id} name={r.name} open={open} task={r.task} />
      <WhoLaneGpus r={r} open={open} />
      {/* The server renders with its own clock: the client's first render may differ by a second. */}
      <span className="small muted nowrap" suppressHydrationWarning>
        {ago(r.queuedAt, now).replace(" ago", "")}
      </span>
      <span
        className="small muted nowrap"
        suppressHydrationWarning
        title={expectedStartWords(r, now)}
        data-testid={`forecast-${r.id}`}
      >
        {expectedStartWords(r, now, { short: true })}
      </span>
      {/* Two lines of the reason, the whole of it in the tooltip; on click the row grows to show it all
          (and the full budget and name). */}
      <button
        type="button"
        className="sentence-cell"
        aria-expanded={open}
        title={open ? "Show less" : times ? `${times} · ${sentence}` : sentence}
        onClick={onToggle}
        suppressHydrationWarning
      >
        {open ? (
          <>
            <span className="reason-head">
              {r.reasonCode ? <ReasonTag code={r.reasonCode} details={r.reasonDetails} /> : null}
            </span>
            <span className="sentence-full">
              <ReasonTimes code={r.reasonCode} details={r.reasonDetails} now={now} />
              {sentence}
            </span>
          </>
        ) : (
          // The label, then the time and the sentence, in one flow over two lines: the time on a line
          // beside the label was cut short.
          <span className="sentence-clamp">
            {r.reasonCode ? <ReasonTag code={r.reasonCode} details={r.reasonDetails} /> : null}{" "}
            <ReasonTimes code={r.reasonCode} details={r.reasonDetails} now={now} />
            {sentence}
          </span>
        )}
      </button>
    </div>
  );
}

/**
 * The pending list, virtualized and paged: only the rows on screen are in the DOM, and only the pages
 * of 100 rows they fall in are fetched (and refreshed while on screen). The first page without a
 * filter is the summary's head, rendered on the server.
 */
function PendingList({
  cluster,
  head,
  total,
  filter,
  now,
  me,
}: {
  cluster: string;
  head: QueuePendingRow[];
  total: number;
  filter: string;
  now: number;
  me: string | undefined;
}) {
  const trpc = useTRPC();
  const parent = useRef<HTMLDivElement>(null);
  const [open, setOpen] = useState<number | null>(null);
  const byPageRef = useRef(new Map<number, QueuePendingRow[]>());
  const filtered = useQuery({
    ...trpc.queue.page.queryOptions({ cluster, offset: 0, limit: PAGE, filter }),
    enabled: filter !== "",
    refetchInterval: 1500,
    placeholderData: keepPreviousData,
  });
  const count = filter ? (filtered.data?.total ?? 0) : total;
  // initialRect lets the server render the first screenful (the list is 560 px high).
  const idAt = (i: number) => byPageRef.current.get(Math.floor(i / PAGE))?.[i % PAGE]?.id;
  const v = useVirtualizer({
    count,
    getScrollElement: () => parent.current,
    estimateSize: (i) => (open !== null && idAt(i) === open ? OPEN_ROW : ROW),
    // Sizes go with the job, not its place: the opened row keeps its measured height when the order moves.
    getItemKey: (i) => idAt(i) ?? `row-${i}`,
    overscan: 12,
    initialRect: { width: 1000, height: 560 },
  });
  const items = v.getVirtualItems();
  const pageIndexes = [...new Set(items.map((it) => Math.floor(it.index / PAGE)))].filter((p) => p > 0);
  const pages = useQueries({
    queries: pageIndexes.map((p) => ({
      ...trpc.queue.page.queryOptions({ cluster, offset: p * PAGE, limit: PAGE, filter }),
      refetchInterval: 1500,
    })),
  });
  const byPage = new Map<number, QueuePendingRow[]>([[0, (filter ? filtered.data?.rows : head) ?? []]]);
  pageIndexes.forEach((p, i) => {
    const rows = pages[i]?.data?.rows;
    if (rows) byPage.set(p, rows);
  });
  byPageRef.current = byPage;
  // Row heights change when one opens or closes: forget the sizes measured before (the opened row is
  // measured as it renders).
  const toggle = (id: number) => {
    v.measure();
    setOpen(open === id ? null : id);
  };
  if (count === 0) {
    if (filter && filtered.isPending) return <p className="panel-body muted small">Filtering…</p>;
    return filter ? (
      <Empty title="No match">No pending job matches &ldquo;{filter}&rdquo; (budget, user or #id).</Empty>
    ) : (
      <Empty title="No pending jobs">Every job on this cluster is running or done.</Empty>
    );
  }
  return (
    <>
      <div className="vhead q-cols">
        <span className="num">#</span>
        <span>Job</span>
        <span>Budget · user</span>
        <span>Lane</span>
        <span className="num">GPUs</span>
        <span>Waiting</span>
        <span title="Expected start if nothing new arrives (the scheduler's forecast)">Starts</span>
        <span>Reason</span>
      </div>
      <div className="vlist" ref={parent} data-testid="pending-list" role="table" aria-label="Pending jobs" aria-rowcount={count}>
        <div style={{ height: v.getTotalSize(), position: "relative" }}>
          {items.map((it) => {
            const r = byPage.get(Math.floor(it.index / PAGE))?.[it.index % PAGE];
            return r ? (
              <PendingRow
                key={r.id}
                r={r}
                index={it.index}
                top={it.start}
                height={it.size}
                now={now}
                me={me}
                open={open === r.id}
                onToggle={() => toggle(r.id)}
                measure={open === r.id ? v.measureElement : undefined}
              />
            ) : (
              <div key={`loading-${it.index}`} className="vrow q-cols vrow-loading" style={{ top: it.start, height: ROW }}>
                <span className="num muted">{it.index + 1}</span>
                <span className="skeleton" />
                <span className="skeleton" />
                <span className="skeleton" />
                <span />
                <span />
                <span />
                <span className="skeleton" />
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
                <JobCell id={r.id} name={r.name} task={r.task} />
                <WhoLaneGpus r={r} />
                <span className="small nowrap">
                  {r.awaitingExits
                    ? "—"
                    : r.startedAt
                      ? formatDuration(Math.max(0, Math.round((now - Date.parse(r.startedAt)) / 1000)))
                      : "—"}
                </span>
                <span className="nowrap">
                  {r.awaitingExits ? (
                    <span className="badge b-STOPPING" title="It holds these GPUs and launches once the jobs it preempted exit">
                      waiting for preempted jobs to exit
                    </span>
                  ) : r.state === "STOPPING" ? (
                    <span className="badge b-STOPPING">stopping · {until(r.graceUntil, now)}</span>
                  ) : left > 0 ? (
                    <span className="badge b-protected" title="Protected: not preempted before this ends">
                      protected · {until(r.protectedUntil, now)}
                    </span>
                  ) : (
                    <span className="badge b-interruptible">interruptible</span>
                  )}
                  {r.squattingSince ? (
                    <span
                      className="badge b-squatting"
                      title="Its GPUs have been under 5% busy for at least 30 minutes"
                      data-testid={`squatting-${r.id}`}
                    >
                      idle GPUs · likely squatting
                    </span>
                  ) : null}
                </span>
                <span className="small mono nodes-cell" title={r.nodes.join(", ")}>
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

export function LiveQueue({ cluster, initial }: { cluster: string; initial: QueueView | null }) {
  const trpc = useTRPC();
  const now = useNow(1000);
  const clusters = useQuery(trpc.cluster.list.queryOptions());
  const me = useQuery(trpc.me.get.queryOptions());
  // The summary (counts, running jobs, ratios, latest cycle) with the head of the order, rendered on
  // the server for the first paint, then polled every 1.5 s: it is what each cycle changes.
  const q = useQuery({
    ...trpc.queue.get.queryOptions({ cluster, limit: PAGE }),
    refetchInterval: 1500,
    ...(initial ? { initialData: initial, initialDataUpdatedAt: Date.now() } : {}),
  });
  const [tab, setTab] = useState<"pending" | "running">("pending");
  const [typed, setTyped] = useState("");
  // The filter runs on the server (the browser holds only the rows on screen): ask once typing pauses.
  const [filter, setFilter] = useState("");
  useEffect(() => {
    const t = setTimeout(() => setFilter(typed.trim()), 250);
    return () => clearTimeout(t);
  }, [typed]);
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
        {/* Until the clusters are known: a grey block, not an empty frame. */}
        {clusters.data ? (
          <nav className="seg" aria-label="Clusters">
            {clusters.data.map((c) => (
              <Link key={c.id} href={`/queue/${c.name}`} aria-current={c.name === cluster ? "page" : undefined}>
                {c.name} <span className="faint">{c.gpuType}</span>
              </Link>
            ))}
          </nav>
        ) : (
          <span className="skeleton" style={{ display: "block", width: "10rem", height: "2rem" }} aria-label="Loading" />
        )}
      </div>
      {q.isError ? <div className="alert bad">{errorText(q.error)}</div> : null}
      {q.data ? (
        <>
          <div className="tiles">
            <div className="tile">
              <div className="tile-label">Pending</div>
              <div className="tile-value" data-testid="pending-count">
                {q.data.counts.pending.toLocaleString("en-US")}
              </div>
              <div className="tile-sub">
                {plural(q.data.counts.pendingGpus, "GPU")} requested
                {q.data.counts.held ? ` · ${q.data.counts.held} held` : ""}
              </div>
            </div>
            <div className="tile">
              <div className="tile-label">Running</div>
              <div className="tile-value">{q.data.counts.running}</div>
              <div className="tile-sub">
                {q.data.counts.runningGpus} of {plural(q.data.cluster.gpus, "GPU")} in use
              </div>
              {q.data.counts.awaitingGpus > 0 ? (
                <div className="tile-sub" title="Started by preemption: these GPUs are theirs once the preempted jobs exit">
                  {promisedText(q.data.counts.awaitingGpus)}
                </div>
              ) : null}
            </div>
            <div className="tile">
              <div className="tile-label">Ready capacity</div>
              <div className="tile-value">{q.data.cluster.readyGpus}</div>
              <div className="tile-sub">GPUs on nodes ready for new work</div>
            </div>
            <div className="tile">
              <div className="tile-label">Latest cycle</div>
              <div className="tile-value" style={{ fontSize: "1.2rem", paddingTop: "0.3rem" }} suppressHydrationWarning>
                {q.data.cycle ? ago(q.data.cycle.at, now) : "none yet"}
              </div>
              <div className="tile-sub">
                {q.data.cycle
                  ? `${q.data.cycle.started} started · ${q.data.cycle.preempted} preempted · ${Math.round(q.data.cycle.durationMs)} ms`
                  : "the worker has not run"}
              </div>
            </div>
          </div>
          <div className="q-layout">
            <section className="panel q-panel">
              <div className="panel-head" style={{ paddingBottom: 0, borderBottom: 0 }}>
                <div className="tabs" role="tablist" style={{ marginBottom: 0, flex: 1 }}>
                  <button role="tab" aria-selected={tab === "pending"} onClick={() => setTab("pending")}>
                    Pending ({totalPending.toLocaleString("en-US")})
                  </button>
                  <button role="tab" aria-selected={tab === "running"} onClick={() => setTab("running")}>
                    {runningTabLabel(q.data.counts.running, q.data.running.length - q.data.counts.running)}
                  </button>
                </div>
                {tab === "pending" ? (
                  <input
                    className="input"
                    style={{ maxWidth: 220, minHeight: 32 }}
                    placeholder="Filter by budget, user, #id"
                    value={typed}
                    onChange={(e) => setTyped(e.target.value)}
                    aria-label="Filter pending jobs"
                  />
                ) : null}
              </div>
              {tab === "pending" ? (
                <PendingList
                  cluster={cluster}
                  head={q.data.pending}
                  total={totalPending}
                  filter={filter}
                  now={now}
                  me={me.data?.id}
                />
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
