"use client";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import {
  Area,
  AreaChart,
  Bar,
  BarChart,
  CartesianGrid,
  Cell,
  Legend,
  Line,
  LineChart,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { formatDuration, formatExactDuration } from "@tranche/contracts/format";
import { defaultPolicy } from "@tranche/scheduler-core";
import { useTRPC } from "../../../lib/trpc";
import { PageHead, pct } from "../../../components/ui";
import { errorText } from "../../../lib/error-text";
import { chartGpuHours, durationTicks, plural, preemptionsText } from "../../../lib/words";

const hourLabel = (iso: string) => new Date(iso).toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit" });
/**
 * The queue-wait series in words: the median wait, and the wait 90% of starts beat ("90% within"),
 * for all jobs, debug-lane jobs and large ones (64 GPUs or more). Not "p50" / "p90".
 */
const WAIT = {
  allMedian: "median, all jobs",
  all90: "90% within, all jobs",
  debug90: "90% within, debug jobs",
  large90: `90% within, ${defaultPolicy.largeJobGpus}+ GPU jobs`,
} as const;
/** The legend lists them in this order (recharts sorts alphabetically by default). */
const WAIT_ORDER: string[] = [WAIT.allMedian, WAIT.all90, WAIT.debug90, WAIT.large90];
const short = (path: string) => path.split("/").slice(-1)[0] ?? path;
// Legend labels in the text colour (recharts colours them like their series, unreadable for pale ones).
const legendText = (value: string) => <span style={{ color: "var(--ink-2)" }}>{value}</span>;

/** Placeholders while the numbers load: an empty state there would say something false. */
const TileSkeleton = () => (
  <span className="skeleton" style={{ display: "inline-block", width: "4.5rem", height: "1.4rem" }} aria-label="Loading" />
);
const ChartSkeleton = () => <div className="skeleton" style={{ width: "100%", height: "100%" }} aria-label="Loading" />;
/** "18:26", or "30 Nov 18:26" when not today, in the viewer's time zone. */
function sinceLabel(iso: string): string {
  const d = new Date(iso);
  const time = d.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit" });
  return d.toDateString() === new Date().toDateString()
    ? time
    : `${d.toLocaleDateString("en-GB", { day: "numeric", month: "short" })} ${time}`;
}

export function ChartsView() {
  const trpc = useTRPC();
  const clusters = useQuery(trpc.cluster.list.queryOptions());
  const [cluster, setCluster] = useState("");
  const [hours, setHours] = useState(24);
  const name = cluster || clusters.data?.[0]?.name || "";
  const data = useQuery({
    ...trpc.measure.charts.queryOptions({ cluster: name, hours }),
    enabled: !!name,
    refetchInterval: 30_000,
  });
  const d = data.data;
  const occ =
    d?.occupancy.map((o) => ({
      hour: hourLabel(o.hour),
      allocated: (o.allocated ?? 0) * 100,
      unallocated: (o.unallocated ?? 0) * 100,
    })) ?? [];
  const qw =
    d?.queueWait.map((q) => ({
      hour: hourLabel(q.hour),
      [WAIT.allMedian]: q.allP50 === null ? null : q.allP50 / 60,
      [WAIT.all90]: q.allP90 === null ? null : q.allP90 / 60,
      [WAIT.debug90]: q.debugP90 === null ? null : q.debugP90 / 60,
      [WAIT.large90]: q.largeP90 === null ? null : q.largeP90 / 60,
    })) ?? [];
  // Round ticks, in minutes as the chart's values: each label reads differently.
  const waitTicks = durationTicks(
    Math.max(0, ...qw.flatMap((q) => WAIT_ORDER.map((k) => Number(q[k] ?? 0) * 60)).filter(Number.isFinite)),
  ).map((s) => s / 60);
  const del =
    d?.delivery
      .filter((b) => b.delivery !== null)
      // The value rides in the label: a budget owed time but given none has no bar to see.
      .map((b) => ({
        budget: `${short(b.budget)} ${Math.round((b.delivery ?? 0) * 100)}%`,
        delivery: (b.delivery ?? 0) * 100,
      })) ?? [];
  const use =
    d?.usage.map((u) => ({
      budget: short(u.budget),
      usage: chartGpuHours(u.usageGpuHours),
      entitlement: chartGpuHours(u.entitlementGpuHours),
    })) ?? [];
  return (
    <>
      <PageHead
        title="Measures"
        lede={
          <>
            How fully the GPUs were used, how much of what each budget was owed it got, how long jobs waited and how many runs
            were preempted
            {d?.since ? (
              <>
                {" "}
                · <strong suppressHydrationWarning>since {sinceLabel(d.since)}</strong>, when this cluster started
              </>
            ) : null}
            .
          </>
        }
      >
        <div className="seg" role="group" aria-label="Window">
          {[24, 72, 168].map((h) => (
            <button key={h} type="button" aria-pressed={h === hours} onClick={() => setHours(h)}>
              {h === 168 ? "7 d" : `${h} h`}
            </button>
          ))}
        </div>
        <div className="seg" role="group" aria-label="Cluster">
          {clusters.data?.map((c) => (
            <button key={c.id} type="button" aria-pressed={c.name === name} onClick={() => setCluster(c.name)}>
              {c.name}
            </button>
          ))}
        </div>
      </PageHead>
      {data.isError ? <div className="alert bad">{errorText(data.error)}</div> : null}
      <div className="tiles">
        <div className="tile">
          <div className="tile-label">Occupancy</div>
          <div className="tile-value">{d ? pct(d.occupancyWindow.occupancy, 1) : <TileSkeleton />}</div>
          <div className="tile-sub">
            {d ? `${pct(d.occupancyWindow.unallocatedShareOfOccupied)} of it unallocated` : "\u00a0"}
          </div>
        </div>
        <div className="tile">
          <div className="tile-label">Delivery</div>
          <div className="tile-value">{d ? pct(d.deliveryWindow.delivery, 1) : <TileSkeleton />}</div>
          <div className="tile-sub">
            {d
              ? `${d.deliveryWindow.budgetsAtLeast95} of ${plural(d.deliveryWindow.budgetsOwed, "budget")} ≥ 95% · worst ${pct(d.deliveryWindow.minDelivery)}`
              : "\u00a0"}
          </div>
        </div>
        <div className="tile">
          <div className="tile-label">Queue wait</div>
          <div className="tile-value" style={{ fontSize: "1.25rem", paddingTop: "0.25rem" }}>
            {!d ? (
              <TileSkeleton />
            ) : (
              <>
                {d.queueWaitWindow.all.p50 != null ? formatDuration(d.queueWaitWindow.all.p50) : "—"} /{" "}
                {d.queueWaitWindow.all.p90 != null ? formatDuration(d.queueWaitWindow.all.p90) : "—"}
              </>
            )}
          </div>
          <div className="tile-sub">{d ? `median / 90% within · ${plural(d.queueWaitWindow.all.count, "start")}` : "\u00a0"}</div>
        </div>
        <div className="tile">
          <div className="tile-label">Debug lane wait</div>
          <div className="tile-value" style={{ fontSize: "1.25rem", paddingTop: "0.25rem" }}>
            {!d ? <TileSkeleton /> : d.queueWaitWindow.debug.p90 != null ? formatDuration(d.queueWaitWindow.debug.p90) : "—"}
          </div>
          <div className="tile-sub">{d ? `90% within · ${plural(d.queueWaitWindow.debug.count, "debug start")}` : "\u00a0"}</div>
        </div>
        <div className="tile" data-testid="tile-preemptions">
          <div className="tile-label">Preemptions</div>
          <div className="tile-value">{d ? d.preemptionsWindow.count.toLocaleString("en-US") : <TileSkeleton />}</div>
          <div className="tile-sub">{d ? preemptionsText(d.preemptionsWindow) : "\u00a0"}</div>
        </div>
      </div>
      <div className="grid-2-even">
        <section className="panel">
          <div className="panel-head">
            <h2>Occupancy</h2>
            <span className="muted small">% of healthy GPU-time, per hour</span>
          </div>
          <div className="panel-body chart-box" data-testid="chart-occupancy">
            {!d ? <ChartSkeleton /> : null}
            <ResponsiveContainer width="100%" height={d ? "100%" : 0}>
              <AreaChart data={occ}>
                <CartesianGrid stroke="#eef0f3" vertical={false} />
                <XAxis dataKey="hour" tick={{ fontSize: 11 }} minTickGap={24} />
                <YAxis domain={[0, 100]} tick={{ fontSize: 11 }} unit="%" width={44} />
                <Tooltip formatter={(v) => `${Number(v).toFixed(1)}%`} />
                <Legend formatter={legendText} />
                <Area
                  type="monotone"
                  dataKey="allocated"
                  stackId="1"
                  stroke="#3b5bdb"
                  fill="#3b5bdb"
                  fillOpacity={0.75}
                  isAnimationActive={false}
                />
                <Area
                  type="monotone"
                  dataKey="unallocated"
                  stackId="1"
                  stroke="#98a2b3"
                  fill="#d0d5dd"
                  isAnimationActive={false}
                />
              </AreaChart>
            </ResponsiveContainer>
          </div>
        </section>
        <section className="panel">
          <div className="panel-head">
            <h2>Delivery per budget</h2>
            <span className="muted small">delivered ÷ owed; the line is 95%</span>
          </div>
          <div className="panel-body chart-box" data-testid="chart-delivery">
            {!d ? (
              <ChartSkeleton />
            ) : del.length === 0 ? (
              <p className="muted">Nothing was owed in this window: no allocated demand yet.</p>
            ) : (
              <ResponsiveContainer width="100%" height="100%">
                {/* Room on the right for the line's "95%" label, which was cut to "9". */}
                <BarChart data={del} margin={{ left: 24, right: 36 }}>
                  <CartesianGrid stroke="#eef0f3" vertical={false} />
                  <XAxis dataKey="budget" tick={{ fontSize: 10 }} interval={0} angle={-30} textAnchor="end" height={70} />
                  <YAxis domain={[0, 100]} tick={{ fontSize: 11 }} unit="%" width={44} />
                  <Tooltip formatter={(v) => `${Number(v).toFixed(1)}%`} />
                  <ReferenceLine
                    y={95}
                    stroke="#c4320a"
                    strokeDasharray="4 3"
                    label={{ value: "95%", position: "right", fontSize: 11, fill: "#c4320a" }}
                  />
                  <Bar dataKey="delivery" fill="#12b76a" radius={[3, 3, 0, 0]} isAnimationActive={false}>
                    {del.map((b) => (
                      <Cell key={b.budget} fill={b.delivery >= 95 ? "#12b76a" : "#f79009"} />
                    ))}
                  </Bar>
                </BarChart>
              </ResponsiveContainer>
            )}
          </div>
        </section>
        <section className="panel">
          <div className="panel-head">
            <h2>Queue wait by class</h2>
            <span className="muted small">by hour of start</span>
          </div>
          <div className="panel-body chart-box" data-testid="chart-queue-wait">
            {!d ? <ChartSkeleton /> : null}
            <ResponsiveContainer width="100%" height={d ? "100%" : 0}>
              <LineChart data={qw}>
                <CartesianGrid stroke="#eef0f3" vertical={false} />
                <XAxis dataKey="hour" tick={{ fontSize: 11 }} minTickGap={24} />
                <YAxis
                  tick={{ fontSize: 11 }}
                  width={60}
                  ticks={waitTicks}
                  domain={[0, waitTicks[waitTicks.length - 1]!]}
                  tickFormatter={(m: number) => formatExactDuration(Math.round(m * 60))}
                />
                <Tooltip formatter={(v) => (v === null ? "—" : formatDuration(Math.round(Number(v) * 60)))} />
                <Legend formatter={legendText} itemSorter={(it) => WAIT_ORDER.indexOf(String(it.value))} />
                <Line dataKey={WAIT.allMedian} stroke="#3b5bdb" dot={{ r: 2.5 }} connectNulls isAnimationActive={false} />
                <Line
                  dataKey={WAIT.all90}
                  stroke="#3b5bdb"
                  strokeDasharray="5 3"
                  dot={{ r: 2.5 }}
                  connectNulls
                  isAnimationActive={false}
                />
                <Line dataKey={WAIT.debug90} stroke="#06aed4" dot={{ r: 2.5 }} connectNulls isAnimationActive={false} />
                <Line dataKey={WAIT.large90} stroke="#f79009" dot={{ r: 2.5 }} connectNulls isAnimationActive={false} />
              </LineChart>
            </ResponsiveContainer>
          </div>
        </section>
        <section className="panel">
          <div className="panel-head">
            <h2>Usage vs entitlement</h2>
            <span
              className="muted small"
              title="Entitlement: the allocation history in force at each moment × the cluster's healthy capacity, as the scheduler computes it"
            >
              GPU·h over the 7-day window
            </span>
          </div>
          <div className="panel-body chart-box" data-testid="chart-usage">
            {!d ? (
              <ChartSkeleton />
            ) : use.length === 0 ? (
              <p className="muted">No budgets on this cluster yet.</p>
            ) : (
              <ResponsiveContainer width="100%" height="100%">
                <BarChart data={use} margin={{ left: 24, right: 8 }}>
                  <CartesianGrid stroke="#eef0f3" vertical={false} />
                  <XAxis dataKey="budget" tick={{ fontSize: 10 }} interval={0} angle={-30} textAnchor="end" height={70} />
                  <YAxis tick={{ fontSize: 11 }} width={52} />
                  <Tooltip />
                  <Legend formatter={legendText} />
                  <Bar dataKey="entitlement" fill="#c7d2fe" radius={[3, 3, 0, 0]} isAnimationActive={false} />
                  <Bar dataKey="usage" fill="#3b5bdb" radius={[3, 3, 0, 0]} isAnimationActive={false} />
                </BarChart>
              </ResponsiveContainer>
            )}
          </div>
        </section>
      </div>
    </>
  );
}
