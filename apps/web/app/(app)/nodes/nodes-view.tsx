"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import type { NodeView } from "@tranche/domain";
import { useTRPC } from "../../../lib/trpc";
import { Empty, PageHead, StateBadge, ago, budgetColors, useNow, when } from "../../../components/ui";
import { errorText } from "../../../lib/error-text";
import { nodeChangeReasonText, nodeReasonWords, nodeStateText } from "../../../lib/words";
import { retiredNodeSentence } from "@tranche/contracts";
import { NodeCard } from "./node-card";
import { NodeHealth } from "./node-health";
import { DrainControls } from "./planned-drain";

const STATES = ["READY", "CORDONED", "DRAINING", "REPAIR", "DOWN"] as const;

export function NodesView() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const now = useNow(5000);
  const me = useQuery(trpc.me.get.queryOptions());
  const clusters = useQuery(trpc.cluster.list.queryOptions());
  const [cluster, setCluster] = useState("");
  const clusterName = cluster || clusters.data?.[0]?.name || "";
  // Retired nodes are out of service for good: listed, greyed, only when asked for.
  const [showRetired, setShowRetired] = useState(false);
  const nodes = useQuery({
    ...trpc.node.list.queryOptions({ cluster: clusterName, retired: showRetired }),
    enabled: !!clusterName,
    refetchInterval: 2000,
  });
  const repair = useQuery({
    ...trpc.node.repairQueue.queryOptions({ cluster: clusterName }),
    enabled: !!clusterName,
    refetchInterval: 5000,
  });
  const [selId, setSelId] = useState<string | null>(null);
  const [reason, setReason] = useState("");
  const [flash, setFlash] = useState<{ kind: "ok" | "bad"; text: string; nodeId?: string; state?: string } | null>(null);
  const sel = nodes.data?.find((n) => n.id === selId) ?? null;
  const events = useQuery({ ...trpc.node.events.queryOptions({ nodeId: selId ?? "" }), enabled: !!selId });
  // One state across the page: when a node changes state (a drain that empties goes to repair a cycle
  // later), the repair queue and the history are read again with the list, not on clocks of their own
  // (the header said "In repair" while the queue said "Draining" and the history stopped at "draining").
  const states = nodes.data?.map((n) => `${n.id}:${n.state}`).join(",");
  useEffect(() => {
    if (states === undefined) return;
    void qc.invalidateQueries({ queryKey: trpc.node.repairQueue.queryKey() });
    void qc.invalidateQueries({ queryKey: trpc.node.events.queryKey() });
  }, [states, qc, trpc]);
  const canOperate = me.data?.role === "OPERATOR" || me.data?.role === "ADMIN";
  const done = (verb: string) => ({
    onSuccess: (n: NodeView) => {
      setFlash({ kind: "ok" as const, text: `${n.name}: ${verb}.`, nodeId: n.id, state: n.state });
      setReason("");
      void qc.invalidateQueries({ queryKey: trpc.node.list.queryKey() });
      void qc.invalidateQueries({ queryKey: trpc.node.repairQueue.queryKey() });
      void qc.invalidateQueries({ queryKey: trpc.node.events.queryKey() });
    },
    onError: (e: unknown) => setFlash({ kind: "bad" as const, text: errorText(e) }),
  });
  const cordon = useMutation(trpc.node.cordon.mutationOptions(done("cordoned")));
  const drain = useMutation(trpc.node.drain.mutationOptions(done("drain started")));
  const planDrain = useMutation(trpc.node.planDrain.mutationOptions(done("drain planned")));
  const cancelDrain = useMutation(trpc.node.cancelDrain.mutationOptions(done("planned drain cancelled")));
  const uncordon = useMutation(trpc.node.uncordon.mutationOptions(done("returned to service")));
  const repaired = useMutation(trpc.node.markRepaired.mutationOptions(done("marked repaired")));
  // A retired node leaves the list unless retired nodes are shown, and the panel goes: the answer is said where the panel was.
  const retire = useMutation(
    trpc.node.retire.mutationOptions({
      onSuccess: (r) => {
        setSelId(null);
        setReason("");
        setFlash({ kind: "ok", text: retiredNodeSentence(r) });
        void qc.invalidateQueries({ queryKey: trpc.node.list.queryKey() });
        void qc.invalidateQueries({ queryKey: trpc.node.repairQueue.queryKey() });
      },
      onError: (e: unknown) => setFlash({ kind: "bad", text: errorText(e) }),
    }),
  );

  const counts = useMemo(() => {
    const c: Record<string, number> = {};
    for (const n of nodes.data ?? []) c[n.state] = (c[n.state] ?? 0) + 1;
    return c;
  }, [nodes.data]);
  const budgets = useMemo(() => {
    const m = new Map<string, number>();
    for (const n of nodes.data ?? []) for (const g of n.gpus) if (g.budget) m.set(g.budget, (m.get(g.budget) ?? 0) + 1);
    return [...m.entries()].sort((a, b) => b[1] - a[1]);
  }, [nodes.data]);
  const colors = useMemo(() => budgetColors(budgets.map(([b]) => b)), [budgets]);
  // A retired node's GPUs are no part of the cluster's capacity, shown or not.
  const inService = (nodes.data ?? []).filter((n) => n.state !== "RETIRED");
  const used = inService.reduce((s, n) => s + n.usedGpus, 0);
  const total = inService.reduce((s, n) => s + n.gpuCount, 0);

  return (
    <>
      <PageHead
        title="Nodes"
        lede="Every GPU, coloured by the budget it is charged to. Cordon stops new work; drain also moves jobs off as their contracts allow."
      >
        <div className="seg" role="group" aria-label="Cluster">
          {clusters.data?.map((c) => (
            <button
              key={c.id}
              type="button"
              aria-pressed={c.name === clusterName}
              onClick={() => (setCluster(c.name), setSelId(null))}
            >
              {c.name}
            </button>
          ))}
        </div>
      </PageHead>
      <div className="tiles tiles-narrow">
        <div className="tile">
          <div className="tile-label">GPUs in use</div>
          {/* While loading, a dash: "0 / 0" and zero ready nodes would be false. */}
          <div className="tile-value">
            {nodes.data ? used : "—"}{" "}
            <span className="muted" style={{ fontSize: "1rem" }}>
              / {nodes.data ? total : "—"}
            </span>
          </div>
        </div>
        {STATES.map((s) => (
          <div className="tile" key={s}>
            <div className="tile-label">{nodeStateText(s)}</div>
            <div className="tile-value">{nodes.data ? (counts[s] ?? 0) : "—"}</div>
          </div>
        ))}
      </div>
      <div className="grid-2" style={{ gridTemplateColumns: "minmax(0, 1fr) 320px" }}>
        <section className="panel">
          <div className="panel-head">
            <h2 className="nowrap">{clusterName ? `${clusterName} nodes` : "Nodes"}</h2>
            <span className="spacer" />
            <label className="small nowrap">
              <input type="checkbox" checked={showRetired} onChange={(e) => setShowRetired(e.target.checked)} /> Show retired
              nodes
            </label>
            {/* Every budget on the map: a colour without its name in the legend tells nobody anything. */}
            <div className="legend">
              {budgets.map(([b, n]) => (
                <span key={b}>
                  <i style={{ background: colors.get(b) }} />
                  {b.split("/").slice(1).join("/")} · {n}
                </span>
              ))}
              <span>
                <i style={{ background: "#eef0f3", border: "1px solid #e4e7ec" }} /> free
              </span>
            </div>
          </div>
          <div className="panel-body">
            {nodes.data && nodes.data.length === 0 ? <Empty title="No nodes in this cluster" /> : null}
            <div className="node-grid" data-testid="node-grid">
              {nodes.data?.map((n) => (
                <NodeCard
                  key={n.id}
                  node={n}
                  colors={colors}
                  selected={n.id === selId}
                  now={now}
                  onSelect={() => (setSelId(n.id), setFlash(null))}
                />
              ))}
            </div>
          </div>
        </section>
        <div className="stack">
          <section className="panel" data-testid="node-panel">
            <div className="panel-head">
              <h2>{sel ? sel.name : "Select a node"}</h2>
              {sel ? <StateBadge state={sel.state} /> : null}
            </div>
            <div className="panel-body">
              {!sel ? (
                <>
                  <p className="muted" style={{ margin: 0 }}>
                    Click a node to see its health and jobs
                    {canOperate ? ", and to cordon, drain, return it to service or retire it" : ""}.
                  </p>
                  {flash && !flash.nodeId ? (
                    <div className={`alert ${flash.kind}`} role="status" data-testid="node-flash">
                      {flash.text}
                    </div>
                  ) : null}
                </>
              ) : (
                <div className="stack" style={{ gap: "0.8rem" }}>
                  <dl className="kv">
                    <dt>State</dt>
                    <dd>
                      {sentenceCase(nodeStateText(sel.state))} since {when(sel.stateChangedAt)}
                      {nodeReasonWords(sel, now) ? <div className="small muted">{nodeReasonWords(sel, now)}</div> : null}
                    </dd>
                    <dt>Health</dt>
                    <dd>
                      <NodeHealth node={sel} />
                    </dd>
                    <dt>GPU utilization</dt>
                    <dd>{sel.busyPercent !== null ? `${Math.round(sel.busyPercent)}%` : "—"}</dd>
                    <dt>Agent</dt>
                    <dd>
                      {sel.agentVersion
                        ? `${sel.agentVersion} · last heartbeat ${ago(sel.lastHeartbeatAt, now)}`
                        : "not enrolled"}
                    </dd>
                    <dt>Jobs</dt>
                    <dd>
                      {[...new Map(sel.gpus.filter((g) => g.jobId !== null).map((g) => [g.jobId, g])).values()].map((g) => (
                        <div key={g.jobId} className="small">
                          <a href={`/jobs/${g.jobId}`}>#{g.jobId}</a> {g.budget} · {g.user}
                          {g.charged
                            ? g.protectedUntil && Date.parse(g.protectedUntil) > now
                              ? " · protected"
                              : " · interruptible"
                            : " · unallocated"}
                          {g.squattingSince ? " · likely squatting (GPUs idle for 30 min)" : ""}
                        </div>
                      ))}
                      {sel.usedGpus === 0 ? <span className="muted">none</span> : null}
                    </dd>
                  </dl>
                  {sel.state === "RETIRED" ? (
                    <p className="small muted" style={{ margin: 0 }}>
                      Retired: out of service for good, its history kept. A token issued for its name brings it back.
                    </p>
                  ) : canOperate ? (
                    <>
                      <input
                        className="input"
                        placeholder="Reason (recorded in the audit log)"
                        value={reason}
                        onChange={(e) => setReason(e.target.value)}
                      />
                      <div className="row" style={{ gap: "0.5rem" }}>
                        <button
                          className="btn"
                          disabled={sel.state !== "READY"}
                          onClick={() => cordon.mutate({ nodeId: sel.id, reason })}
                        >
                          Cordon
                        </button>
                        <button
                          className="btn"
                          disabled={sel.state !== "CORDONED" && sel.state !== "DRAINING"}
                          onClick={() => uncordon.mutate({ nodeId: sel.id, reason })}
                        >
                          Return to service
                        </button>
                        <button
                          className="btn"
                          disabled={sel.state === "READY"}
                          onClick={() => repaired.mutate({ nodeId: sel.id, reason })}
                        >
                          Mark repaired
                        </button>
                        <button
                          className="btn danger"
                          disabled={sel.usedGpus > 0}
                          title={sel.usedGpus > 0 ? "Drain it first: only an empty node can be retired" : undefined}
                          onClick={() => {
                            if (window.confirm(`Retire ${sel.name} for good? Its history is kept.`))
                              retire.mutate({ nodeId: sel.id, reason });
                          }}
                        >
                          Retire
                        </button>
                      </div>
                      <DrainControls
                        node={sel}
                        drainNow={() => drain.mutate({ nodeId: sel.id, reason })}
                        planDrain={(at) => planDrain.mutate({ nodeId: sel.id, at, reason })}
                        cancelPlan={() => cancelDrain.mutate({ nodeId: sel.id })}
                      />
                      <p className="small muted" style={{ margin: 0 }}>
                        Drain at a time: until then only work that can leave by then starts there. Drain: nothing new starts; each
                        job leaves as soon as it is interruptible (protected jobs finish their protection). Empty nodes go to
                        repair. Retire: an empty node leaves service for good (its history is kept; a token issued for its name
                        brings it back).
                      </p>
                    </>
                  ) : null}
                  {flash ? (
                    <div
                      className={`alert ${flash.kind}`}
                      role={flash.kind === "bad" ? "alert" : "status"}
                      data-testid="node-flash"
                    >
                      {flash.text}
                      {/* The state is read live: a drain that finished since says REPAIR, not DRAINING. */}
                      {flash.nodeId && sel && flash.nodeId === sel.id ? ` It is ${nodeStateText(sel.state)} now.` : ""}
                    </div>
                  ) : null}
                  {events.data?.length ? (
                    <div data-testid="node-history">
                      <h3 style={{ marginBottom: "0.4rem" }}>History</h3>
                      {events.data.slice(0, 8).map((e) => (
                        <div key={e.id} className="small" style={{ padding: "0.2rem 0" }}>
                          <span className="muted">{when(e.at)}</span>{" "}
                          {/* A line that left the state as it was (a revocation, an agent enrolling again) names it once. */}
                          {e.from !== e.to ? `${e.from ? nodeStateText(e.from) : "—"} → ` : null}
                          <strong>{nodeStateText(e.to)}</strong> · {nodeChangeReasonText(e.reason)}
                          {e.by ? (
                            <span className="faint"> (by {e.by})</span>
                          ) : e.automatic ? (
                            <span className="faint"> (automatic)</span>
                          ) : null}
                        </div>
                      ))}
                    </div>
                  ) : null}
                </div>
              )}
            </div>
          </section>
          <section className="panel">
            <div className="panel-head">
              <h2>Repair queue</h2>
              <span className="muted">{repair.data ? `${repair.data.length} on ${clusterName}` : "—"}</span>
            </div>
            {!repair.data ? (
              <div className="panel-body">
                <span className="skeleton" style={{ display: "block", height: "3rem" }} aria-label="Loading" />
              </div>
            ) : repair.data.length ? (
              <table className="table" data-testid="repair-queue">
                <tbody>
                  {repair.data.map((r) => (
                    <tr key={r.id}>
                      <td className="small">
                        <span className="mono">{r.name}</span> <StateBadge state={r.state} />
                        <div className="muted">
                          {[
                            nodeReasonWords({ ...r, stateReason: r.reason, stateChangedAt: r.since }, now),
                            ago(r.since, now),
                            r.manual ? "manual" : "automatic",
                          ]
                            .filter(Boolean)
                            .join(" · ")}
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <Empty title={`Nothing on ${clusterName} waiting for repair`} />
            )}
          </section>
        </div>
      </div>
    </>
  );
}

const sentenceCase = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
