"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { YOUNG_CLUSTER_NOTE, formatPpm, isYoungCluster, parsePercentToPpm } from "@tranche/contracts";
import type { BudgetTreeNodeView, WhatIfResult } from "@tranche/domain";
import { useTRPC } from "../../../lib/trpc";
import { PageHead, ago, colorFor, gpuHours, useNow, when } from "../../../components/ui";
import { AllocationStrip, PPM, type StripItem } from "./allocation-strip";
import { ofCluster } from "../../../lib/budget-shares";
import { errorText } from "../../../lib/error-text";
import { shareBoxProblem } from "../../../lib/share-boxes";
import { plural, ratioText, readOnlyText } from "../../../lib/words";
import { UserLimits } from "./user-limits";
import { BudgetMembers } from "./budget-members";
import { TreeShape } from "./tree-shape";

function flatten(n: BudgetTreeNodeView, depth = 0, out: { node: BudgetTreeNodeView; depth: number }[] = []) {
  out.push({ node: n, depth });
  for (const c of n.children) flatten(c, depth + 1, out);
  return out;
}

/** What a share in the tree marked "unsaved" is. */
const UNSAVED_TITLE = "Not saved yet: the share being edited above. Usage and ratios are from the saved shares.";

export function BudgetsView() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const now = useNow(10_000);
  const tree = useQuery({ ...trpc.budget.tree.queryOptions(), refetchInterval: 10_000 });
  const [cluster, setCluster] = useState<string>("");
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [draft, setDraft] = useState<StripItem[] | null>(null);
  const [texts, setTexts] = useState<Record<string, string>>({});
  const [note, setNote] = useState("");
  const [flash, setFlash] = useState<{ kind: "ok" | "bad"; text: string } | null>(null);
  const [whatIf, setWhatIf] = useState<WhatIfResult | null>(null);

  const clusterName = cluster || tree.data?.clusters[0]?.name || "";
  const history = useQuery({
    ...trpc.budget.history.queryOptions({ cluster: clusterName || undefined, limit: 30 }),
    enabled: !!clusterName,
  });
  const rows = useMemo(() => (tree.data?.root ? flatten(tree.data.root) : []), [tree.data]);
  const defaultSel = useMemo(() => {
    // Start on the first subtree the user manages, else the root.
    const managed = rows.find(
      (r) => r.node.managesChildren && r.node.children.length > 0 && tree.data?.managedPaths.includes(r.node.path),
    );
    return managed?.node.id ?? rows[0]?.node.id ?? null;
  }, [rows, tree.data]);
  const selId = selectedId ?? defaultSel;
  const selected = rows.find((r) => r.node.id === selId)?.node ?? null;
  const saved: StripItem[] = useMemo(
    () =>
      selected
        ? selected.children.map((c) => ({ id: c.id, name: c.name, path: c.path, ppm: c.perCluster[clusterName]?.ppm ?? 0 }))
        : [],
    [selected, clusterName],
  );
  const items = draft ?? saved;
  useEffect(() => {
    setDraft(null);
    setTexts({});
    setWhatIf(null);
    // A "Saved: ..." message belongs to the cluster and node it was about.
    setFlash(null);
  }, [selId, clusterName]);
  const sum = items.reduce((s, i) => s + i.ppm, 0);
  const dirty = draft !== null && draft.some((d, i) => d.ppm !== saved[i]?.ppm);
  const editable = !!selected?.managesChildren && selected.children.length > 0;
  const changes = items.filter((d, i) => d.ppm !== saved[i]?.ppm).map((d) => ({ treeNodeId: d.id, ppm: d.ppm }));

  const save = useMutation(
    trpc.budget.setAllocations.mutationOptions({
      onSuccess: (r) => {
        setFlash({
          kind: "ok",
          text: `Saved: ${r.changed.map((c) => `${c.path} ${formatPpm(c.fromPpm)} → ${formatPpm(c.toPpm)}`).join(", ")}`,
        });
        setDraft(null);
        setTexts({});
        setNote("");
        setWhatIf(null);
        void qc.invalidateQueries({ queryKey: trpc.budget.tree.queryKey() });
        void qc.invalidateQueries({ queryKey: trpc.budget.history.queryKey() });
      },
      onError: (e) => setFlash({ kind: "bad", text: errorText(e) }),
    }),
  );
  const preview = useMutation({
    mutationFn: () =>
      qc.fetchQuery(
        trpc.budget.whatIf.queryOptions({ cluster: clusterName, parentId: selected!.id, allocations: changes, limit: 25 }),
      ),
    onSuccess: (r) => setWhatIf(r),
    onError: (e) => setFlash({ kind: "bad", text: errorText(e) }),
  });

  // An edit makes the last save's note stale: it goes with the first change after it.
  const setPpm = (id: string, ppm: number) => (setDraft(items.map((i) => (i.id === id ? { ...i, ppm } : i))), setFlash(null));
  const boxProblem = shareBoxProblem(texts, (id) => items.find((i) => i.id === id)?.name ?? id);

  if (tree.isPending) return <p className="muted">Loading the budget tree…</p>;
  if (tree.isError) return <div className="alert bad">{errorText(tree.error)}</div>;
  const clusterRow = tree.data.clusters.find((c) => c.name === clusterName);
  const cycleAt = clusterRow?.cycleAt ?? null;
  const young = clusterRow ? isYoungCluster(clusterRow, now) : false;
  // The tree shows the saved shares, as the cycle's usage and ratios beside them were computed with;
  // an unsaved edit is marked beside them ("unsaved 21.5%"), with the "of cluster" it would give,
  // down to the children of the node edited.
  const nodes = rows.map((r) => r.node);
  const savedById = new Map(nodes.map((n) => [n.id, n.perCluster[clusterName]?.ppm ?? 0]));
  const savedPpm = (id: string) => savedById.get(id) ?? 0;
  const draftPpmOf = (id: string) => (dirty ? changes.find((c) => c.treeNodeId === id)?.ppm : undefined);
  const effective = ofCluster(nodes, savedPpm);
  const draftEffective = dirty ? ofCluster(nodes, (id) => draftPpmOf(id) ?? savedPpm(id)) : effective;
  const pctText = (x: number | undefined) => `${((x ?? 0) * 100).toFixed(1)}%`;

  return (
    <>
      <PageHead
        title="Budgets"
        lede={
          tree.data.managedPaths.length
            ? `You manage ${tree.data.managedPaths.join(", ")}. Drag a boundary or type a share to move GPU time between siblings.`
            : "Each node holds a share of its parent's GPU time on each cluster. Only the subtree's managers can change it."
        }
      >
        <div className="seg" role="group" aria-label="Cluster">
          {tree.data.clusters.map((c) => (
            <button key={c.id} type="button" aria-pressed={c.name === clusterName} onClick={() => setCluster(c.name)}>
              {c.name} <span className="faint">{plural(c.gpus, "GPU")}</span>
            </button>
          ))}
        </div>
      </PageHead>

      {selected && selected.children.length > 0 ? (
        <section className="panel" data-testid="allocation-editor" style={{ marginBottom: "1.25rem" }}>
          <div className="panel-head">
            <h2>
              Shares of <span className="mono">{selected.path}</span> on {clusterName}
            </h2>
            <span className={`sum-pill ${sum > PPM ? "over" : ""}`} data-testid="sum-pill">
              {formatPpm(sum)} assigned
            </span>
            <span className="muted">{formatPpm(Math.max(0, PPM - sum))} unassigned</span>
            <span className="spacer" />
            {!editable ? (
              <span className="badge plain b-HELD" data-testid="read-only">
                {readOnlyText(tree.data.managedPaths)}
              </span>
            ) : null}
          </div>
          <div className="panel-body">
            <AllocationStrip items={items} editable={editable} onChange={(n) => (setDraft(n), setTexts({}), setFlash(null))} />
            <div className="sib-grid">
              {items.map((it, i) => {
                const before = saved[i]?.ppm ?? 0;
                const diff = it.ppm - before;
                return (
                  <label className="sib" key={it.id}>
                    <span className="swatch" style={{ background: colorFor(it.path) }} />
                    {/* The change on a line of its own, always there where shares can change: beside the name it
                        cut the name short ("evaluation +…"), and appearing mid-drag it would move the boxes. */}
                    <span className="sib-text">
                      <span className="name" title={it.path}>
                        {it.name}
                      </span>
                      {editable ? (
                        <span className="sib-saved" data-testid={`saved-${it.name}`}>
                          {diff !== 0 ? (
                            <>
                              <span className={diff > 0 ? "diff-up" : "diff-down"}>
                                {diff > 0 ? "+" : "−"}
                                {formatPpm(Math.abs(diff))}
                              </span>
                              {" · "}
                            </>
                          ) : null}
                          saved {formatPpm(before)}
                        </span>
                      ) : null}
                    </span>
                    <input
                      className="input"
                      aria-label={`${it.name} share (%)`}
                      data-testid={`share-${it.name}`}
                      disabled={!editable}
                      value={texts[it.id] ?? String(it.ppm / 10_000)}
                      onChange={(e) => {
                        setTexts((t) => ({ ...t, [it.id]: e.target.value }));
                        const ppm = parsePercentToPpm(e.target.value);
                        if (ppm !== null && ppm <= PPM) setPpm(it.id, ppm);
                      }}
                    />
                    <span className="muted small">%</span>
                  </label>
                );
              })}
            </div>
            {boxProblem ? (
              <div className="alert bad" style={{ marginTop: "0.8rem" }} role="alert" data-testid="share-box-problem">
                {boxProblem}
              </div>
            ) : null}
            {sum > PPM ? (
              <div className="alert bad" style={{ marginTop: "0.8rem" }} role="alert">
                The children of {selected.path} would get {formatPpm(sum)}; siblings may sum to at most 100%.
              </div>
            ) : null}
            {flash ? (
              <div
                className={`alert ${flash.kind}`}
                style={{ marginTop: "0.8rem" }}
                role={flash.kind === "bad" ? "alert" : "status"}
                data-testid="alloc-flash"
              >
                {flash.text}
              </div>
            ) : null}
            {editable ? (
              <div className="row" style={{ marginTop: "0.9rem" }}>
                <input
                  className="input"
                  style={{ maxWidth: 360 }}
                  placeholder="Note for the history (optional)"
                  value={note}
                  onChange={(e) => setNote(e.target.value)}
                />
                <button
                  className="btn"
                  type="button"
                  disabled={!dirty || sum > PPM || boxProblem !== null || preview.isPending}
                  onClick={() => preview.mutate()}
                >
                  {preview.isPending ? "Running the scheduler…" : "Preview effect"}
                </button>
                <button
                  className="btn primary"
                  type="button"
                  disabled={!dirty || sum > PPM || boxProblem !== null || save.isPending}
                  onClick={() =>
                    save.mutate({ cluster: clusterName, parentId: selected.id, allocations: changes, note: note || undefined })
                  }
                >
                  Save allocations
                </button>
                <button
                  className="btn ghost"
                  type="button"
                  disabled={!dirty}
                  onClick={() => (setDraft(null), setTexts({}), setWhatIf(null))}
                >
                  Reset
                </button>
              </div>
            ) : null}
            {whatIf ? <WhatIfPanel r={whatIf} /> : null}
          </div>
        </section>
      ) : null}
      {selected && tree.data?.root ? (
        <TreeShape
          node={selected}
          root={tree.data.root}
          clusters={tree.data.clusters.map((c) => c.name)}
          onArchived={(parentId) => setSelectedId(parentId)}
        />
      ) : null}
      {selected ? <UserLimits key={selected.id} node={selected} /> : null}
      {selected ? <BudgetMembers key={`members-${selected.id}`} node={selected} /> : null}

      <div className="side-grid">
        <section className="panel scroll-x">
          <div className="panel-head">
            <h2>Tree on {clusterName}</h2>
            <span className="muted small">
              {cycleAt
                ? `usage and ratios from the scheduling cycle ${ago(cycleAt, now)}`
                : "usage appears after the first scheduling cycle"}
            </span>
          </div>
          {young ? (
            <p className="muted small panel-note" data-testid="young-cluster-note">
              {YOUNG_CLUSTER_NOTE}
            </p>
          ) : null}
          <table className="table" aria-label="Budget tree">
            <thead>
              <tr>
                <th>Node</th>
                <th>Share of parent</th>
                <th className="num">Of cluster</th>
                {/* May wrap: on one line it pushed the ratio column out of the panel at 1440 px. */}
                <th className="num" style={{ whiteSpace: "normal" }}>
                  Usage / entitlement (7 d)
                </th>
                <th
                  className="num"
                  title="Usage ÷ entitlement over the last 7 days (the live queue also shows the projected ratio that orders it)"
                >
                  Share used (7 d)
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map(({ node, depth }) => {
                const s = node.perCluster[clusterName];
                const isSel = node.id === selId;
                const ppm = s?.ppm ?? 0;
                const draftPpm = draftPpmOf(node.id);
                const ofClusterNow = pctText(effective.get(node.id));
                const ofClusterDraft = pctText(draftEffective.get(node.id));
                return (
                  <tr
                    key={node.id}
                    // A budget is picked only where it may be shaped (given children, renamed, archived).
                    onClick={() => (node.children.length || node.managesChildren) && setSelectedId(node.id)}
                    style={{
                      cursor: node.children.length || node.managesChildren ? "pointer" : undefined,
                      background: isSel ? "#f5f7ff" : undefined,
                    }}
                    data-testid={`tree-row-${node.path}`}
                  >
                    <td className="nowrap" style={{ paddingLeft: `${0.8 + depth * 1.2}rem` }}>
                      <span style={{ fontWeight: node.children.length ? 650 : 500 }}>{node.name}</span>
                      <span className="faint small">
                        {" "}
                        ·{" "}
                        {node.children.length ? plural(node.children.length, "budget") : plural(node.members, "person", "people")}
                      </span>
                      {tree.data.managedPaths.includes(node.path) ? (
                        <span className="tag" style={{ marginLeft: 6 }}>
                          you manage
                        </span>
                      ) : null}
                    </td>
                    <td>
                      <div className="row" style={{ gap: "0.5rem", flexWrap: "nowrap" }}>
                        <span className="meter" style={{ width: 64 }}>
                          <span style={{ width: `${ppm / 10_000}%`, background: colorFor(node.path) }} />
                        </span>
                        <span className="small num" data-testid={`ppm-${node.path}`}>
                          {node.parentId ? formatPpm(ppm) : "100%"}
                        </span>
                        {draftPpm !== undefined ? (
                          <span className="draft-mark" data-testid={`draft-ppm-${node.path}`} title={UNSAVED_TITLE}>
                            unsaved {formatPpm(draftPpm)}
                          </span>
                        ) : null}
                      </div>
                    </td>
                    <td className="num small">
                      <span data-testid={`of-cluster-${node.path}`}>{ofClusterNow}</span>
                      {ofClusterDraft !== ofClusterNow ? (
                        <span className="draft-mark" data-testid={`draft-of-cluster-${node.path}`} title={UNSAVED_TITLE}>
                          unsaved {ofClusterDraft}
                        </span>
                      ) : null}
                    </td>
                    <td className="num small">
                      {s?.usageGpuSeconds !== null && s?.usageGpuSeconds !== undefined
                        ? `${gpuHours(s.usageGpuSeconds)} / ${gpuHours(s.accruedEntitlementGpuSeconds ?? s.entitlementGpuSeconds)}`
                        : "—"}
                    </td>
                    <td
                      className="num small"
                      style={{ color: s?.ratio !== null && s?.ratio !== undefined && s.ratio > 1 ? "var(--warn)" : undefined }}
                    >
                      {ratioText(s?.ratio)}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </section>
        <section className="panel">
          <div className="panel-head">
            <h2>History on {clusterName}</h2>
            <span className="muted small">who changed what, when</span>
          </div>
          {/* Loading or failing is not "no changes": that empty state is for a history that is really empty. */}
          {history.error ? (
            <div className="panel-body">
              <div className="alert bad" role="alert">
                {errorText(history.error)}
              </div>
            </div>
          ) : !history.data ? (
            <div className="panel-body">
              <span className="skeleton" style={{ display: "block", height: "4rem" }} aria-label="Loading" />
            </div>
          ) : history.data.length ? (
            <table className="table" aria-label="Allocation history" data-testid="history">
              <tbody>
                {history.data.map((h) => (
                  <tr key={h.id}>
                    <td className="small">
                      <div>
                        <strong>{h.path.split("/").slice(1).join("/") || h.path}</strong>{" "}
                        <span className="nowrap">
                          {formatPpm(h.fromPpm)} → <strong>{formatPpm(h.toPpm)}</strong>
                        </span>
                      </div>
                      <div className="muted">
                        {h.actor ?? "system"} · {when(h.at)}
                        {h.note ? ` · “${h.note}”` : ""}
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <div className="panel-body muted">No changes yet.</div>
          )}
        </section>
      </div>
    </>
  );
}

function WhatIfPanel({ r }: { r: WhatIfResult }) {
  return (
    <div style={{ marginTop: "1rem" }} data-testid="what-if">
      <div className="alert info">
        Preview at {when(r.at)}: the scheduler&apos;s next cycle with these shares (as if they had held over the whole window)
        would reorder <strong>{r.moved}</strong> of {r.pendingCount} pending jobs. Nothing is saved yet.
      </div>
      <div className="grid-2-even" style={{ marginTop: "0.8rem" }}>
        <table className="table">
          <thead>
            <tr>
              <th>Node</th>
              <th className="num">Share used now (projected)</th>
              <th className="num">With change</th>
            </tr>
          </thead>
          <tbody>
            {r.ratios.map((x) => (
              <tr key={x.treeNodeId}>
                <td className="small">{x.path}</td>
                <td className="num small">{ratioText(x.before)}</td>
                <td className="num small">{ratioText(x.after)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <table className="table">
          <thead>
            <tr>
              <th>Pending job</th>
              <th className="num">Position now</th>
              <th className="num">With change</th>
            </tr>
          </thead>
          <tbody>
            {r.order.length === 0 ? (
              <tr>
                <td colSpan={3} className="muted small">
                  No pending jobs on this cluster.
                </td>
              </tr>
            ) : (
              r.order.slice(0, 12).map((o) => (
                <tr key={o.jobId}>
                  <td className="small">
                    #{o.jobId} <span className="muted">{o.budget}</span>
                  </td>
                  <td className="num small">
                    {o.before ?? "—"}
                    {o.startsBefore ? " ▶" : ""}
                  </td>
                  <td className="num small">
                    <span
                      className={
                        o.after !== null && o.before !== null
                          ? o.after < o.before
                            ? "diff-up"
                            : o.after > o.before
                              ? "diff-down"
                              : ""
                          : ""
                      }
                    >
                      {o.after ?? "—"}
                    </span>
                    {o.startsAfter ? " ▶" : ""}
                  </td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
      <p className="small muted">▶ starts in that cycle.</p>
    </div>
  );
}
