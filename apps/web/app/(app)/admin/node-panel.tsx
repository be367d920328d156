"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { formatPpm, parsePercentToPpm, type BudgetTreeNodeView } from "@tranche/contracts";
import { useTRPC } from "../../../lib/trpc";
import { archiveQuestion } from "../../../lib/confirm-words";
import type { useNotice } from "../../../components/admin/use-action";
import { FormRow, RowInput, RowSelect } from "../../../components/admin/form-row";
import { AddChild } from "../budgets/add-child";
import { MoveNode } from "../budgets/move-node";
import { NodePeople } from "./node-people";

/**
 * The admin's changes to one node: a new budget under it (the Budgets page's form), rename, move (the Budgets
 * page's Move: the same parents offered, the same question), share per cluster, archive, people.
 */
export function NodePanel({
  node,
  root,
  clusters,
  onNotice: n,
  onSelect,
}: {
  node: BudgetTreeNodeView;
  root: BudgetTreeNodeView;
  clusters: readonly string[];
  onNotice: ReturnType<typeof useNotice>;
  onSelect: (path: string | null) => void;
}) {
  // The page keys this panel by node: what was typed belongs to the node it was typed for.
  const box = useRef<HTMLElement>(null);
  // At a phone's width the panel sits under the whole tree: a tap on a node seemed to do nothing.
  // A block body: Chromium's scrollIntoView now returns a promise, which React took for the effect's
  // cleanup and called when the panel went (the page crashed on picking another node).
  useEffect(() => {
    void box.current?.scrollIntoView({ block: "nearest" });
  }, []);
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [rename, setRename] = useState("");
  const [cluster, setCluster] = useState("");
  const [share, setShare] = useState("");
  const refresh = () => void qc.invalidateQueries({ queryKey: trpc.budget.tree.queryKey() });
  const done = (text: string) => (n.ok(text), refresh());
  const update = useMutation(trpc.admin.updateNode.mutationOptions({ onError: n.fail }));
  const archive = useMutation(trpc.admin.archiveNode.mutationOptions({ onError: n.fail }));
  const setShareM = useMutation(trpc.admin.setShare.mutationOptions({ onError: n.fail }));
  const clusterName = cluster || clusters[0] || "";

  return (
    <section className="panel" aria-label={`Change ${node.path}`} ref={box}>
      <div className="panel-head">
        <h2>{node.path}</h2>
      </div>
      <div className="panel-body stack">
        <AddChild key={node.id} node={node} notice={n} />
        <FormRow
          onSubmit={() =>
            update.mutate(
              { path: node.path, change: { name: rename.trim() } },
              { onSuccess: (r) => (setRename(""), onSelect(r.path), done(`Renamed to ${r.path}.`)) },
            )
          }
        >
          <RowInput label="New name" placeholder="new name" value={rename} onChange={setRename} />
          <button className="btn" disabled={update.isPending || rename.trim() === ""}>
            Rename
          </button>
        </FormRow>
        {node.parentId ? (
          <MoveNode
            node={node}
            root={root}
            clusters={clusters}
            onDone={(ok, text, path) => (ok ? (path && onSelect(path), n.ok(text)) : n.fail({ message: text }))}
          />
        ) : null}
        {node.parentId && clusters.length ? (
          <FormRow
            onSubmit={() => {
              const ppm = parsePercentToPpm(share);
              if (ppm === null) return n.fail({ message: "Share: give a percentage such as 30%." });
              setShareM.mutate(
                { path: node.path, cluster: clusterName, share: ppm / 1_000_000 },
                {
                  onSuccess: () => done(`${node.path} now has ${formatPpm(ppm)} of its parent's share on ${clusterName}.`),
                },
              );
            }}
          >
            <RowSelect label="Cluster" value={clusterName} onChange={setCluster} options={clusters.map((c) => [c, c] as const)} />
            <RowInput label="Share of the parent" placeholder="e.g. 30%" width={110} value={share} onChange={setShare} />
            <button className="btn">Set share</button>
          </FormRow>
        ) : null}
        <div>
          <button
            className="btn danger small"
            disabled={archive.isPending}
            onClick={() => {
              if (confirm(archiveQuestion(node.path)))
                archive.mutate({ path: node.path }, { onSuccess: () => (onSelect(null), done(`Archived ${node.path}.`)) });
            }}
          >
            Archive {node.name}
          </button>
        </div>
        <NodePeople path={node.path} isBudget={node.children.length === 0} onNotice={n} />
      </div>
    </section>
  );
}
