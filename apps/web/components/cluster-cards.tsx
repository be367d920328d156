"use client";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../lib/trpc";
import { ago, useNow } from "./ui";
import { errorText } from "../lib/error-text";
import { nodeStateText, plural, promisedText } from "../lib/words";

const STATE_ORDER = ["READY", "CORDONED", "DRAINING", "REPAIR", "DOWN"];
const fmt = (n: number) => n.toLocaleString("en-US");
const jobs = (n: number) => `GPUs · ${fmt(n)} ${n === 1 ? "job" : "jobs"}`;

export function ClusterCards() {
  const trpc = useTRPC();
  const now = useNow(5000);
  const clusters = useQuery({ ...trpc.cluster.list.queryOptions(), refetchInterval: 5000 });
  if (clusters.isPending) return <p className="muted">Loading clusters…</p>;
  if (clusters.isError) return <p className="error">Could not load clusters: {errorText(clusters.error)}</p>;
  if (clusters.data.length === 0) return <p className="muted">No clusters yet.</p>;
  return (
    <ul className="cards" aria-label="Clusters">
      {clusters.data.map((c) => {
        const used = c.gpuCount ? c.runningGpus / c.gpuCount : 0;
        return (
          <li key={c.id} className="card" data-testid={`cluster-${c.name}`}>
            <div className="card-title">
              <span>
                {c.name} <span className="tag">{c.gpuType}</span>
              </span>
              <Link href={`/queue/${c.name}`} className="small">
                Live queue →
              </Link>
            </div>
            <div className="row" style={{ marginTop: "0.7rem", gap: "1.4rem" }}>
              <div>
                <div className="tile-label">GPUs</div>
                <div className="tile-value">{fmt(c.gpuCount)}</div>
                <div className="tile-sub">
                  {plural(c.nodeCount, "node")} × {c.nodeSize}
                </div>
              </div>
              <div>
                <div className="tile-label">Running</div>
                <div className="tile-value">{fmt(c.runningGpus)}</div>
                <div className="tile-sub">{jobs(c.runningJobs)}</div>
              </div>
              <div>
                <div className="tile-label">Pending</div>
                <div className="tile-value">{fmt(c.pendingGpus)}</div>
                <div className="tile-sub">{jobs(c.pendingJobs)}</div>
              </div>
            </div>
            {/* Below the three counts, not inside one: a long line there pushed the counts into a column. */}
            {c.awaitingGpus > 0 && (
              <div className="tile-sub" title="Started by preemption: these GPUs are theirs once the preempted jobs exit">
                {promisedText(c.awaitingGpus)}
              </div>
            )}
            <div className="meter" style={{ marginTop: "0.8rem" }} title={`${Math.round(used * 100)}% of GPUs running jobs`}>
              <span style={{ width: `${Math.min(100, used * 100)}%` }} />
            </div>
            <div className="row small muted" style={{ marginTop: "0.6rem", justifyContent: "space-between" }}>
              <span>
                {STATE_ORDER.filter((s) => c.nodesByState[s])
                  .map((s) => `${c.nodesByState[s]} ${nodeStateText(s)}`)
                  .join(" · ")}
              </span>
              <span>{c.lastCycleAt ? `cycle ${ago(c.lastCycleAt, now)}` : "no scheduling cycle yet"}</span>
            </div>
          </li>
        );
      })}
    </ul>
  );
}
