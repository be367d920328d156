"use client";
import { useQuery } from "@tanstack/react-query";
import type { BudgetTreeView } from "@tranche/api";
import { useTRPC } from "../lib/trpc";

function percent(ppm: number | undefined): string {
  return ppm === undefined ? "—" : `${(ppm / 10_000).toFixed(ppm % 10_000 === 0 ? 0 : 1)}%`;
}

function TreeRow({ node, clusters, depth }: { node: BudgetTreeView; clusters: string[]; depth: number }) {
  return (
    <>
      <tr>
        <td style={{ paddingLeft: `${0.75 + depth * 1.25}rem` }}>
          <span className={node.children.length ? "tree-branch" : "tree-leaf"}>{node.name}</span>
        </td>
        {clusters.map((c) => (
          <td key={c} className="num">
            <div className="bar" aria-hidden>
              <div className="bar-fill" style={{ width: `${(node.allocationPpm[c] ?? 0) / 10_000}%` }} />
            </div>
            {percent(node.allocationPpm[c])}
          </td>
        ))}
      </tr>
      {node.children.map((child) => (
        <TreeRow key={child.id} node={child} clusters={clusters} depth={depth + 1} />
      ))}
    </>
  );
}

export function BudgetTree() {
  const trpc = useTRPC();
  const tree = useQuery(trpc.budget.tree.queryOptions());
  const clusters = useQuery(trpc.cluster.list.queryOptions());
  if (tree.isPending || clusters.isPending) return <p className="muted">Loading budget tree…</p>;
  if (tree.isError) return <p className="error">Could not load the budget tree: {tree.error.message}</p>;
  if (!tree.data) return <p className="muted">No budget tree yet.</p>;
  const names = (clusters.data ?? []).map((c) => c.name);
  return (
    <table className="table" aria-label="Budget tree">
      <thead>
        <tr>
          <th>Budget</th>
          {names.map((c) => (
            <th key={c} className="num">
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        <TreeRow node={tree.data} clusters={names} depth={0} />
      </tbody>
    </table>
  );
}
