"use client";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../lib/trpc";

export function ClusterCards() {
  const trpc = useTRPC();
  const clusters = useQuery(trpc.cluster.list.queryOptions());
  if (clusters.isPending) return <p className="muted">Loading clusters…</p>;
  if (clusters.isError) return <p className="error">Could not load clusters: {clusters.error.message}</p>;
  if (clusters.data.length === 0) return <p className="muted">No clusters yet.</p>;
  return (
    <ul className="cards" aria-label="Clusters">
      {clusters.data.map((c) => (
        <li key={c.id} className="card" data-testid={`cluster-${c.name}`}>
          <div className="card-title">
            <strong>{c.name}</strong>
            <span className="tag">{c.gpuType}</span>
          </div>
          <div className="stat">
            <span className="stat-value">{c.gpuCount}</span> GPUs on {c.nodeCount} nodes
          </div>
          <div className="muted">
            {c.readyGpus} GPUs ready · {Object.entries(c.nodesByState).map(([s, n]) => `${n} ${s.toLowerCase()}`).join(", ")}
          </div>
        </li>
      ))}
    </ul>
  );
}
