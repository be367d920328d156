"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { formatPpm } from "@tranche/contracts";
import type { BudgetTreeNodeView } from "@tranche/domain";
import { useTRPC } from "../../../lib/trpc";
import { errorText } from "../../../lib/error-text";
import { plural } from "../../../lib/words";
import { FormRow, RowSelect } from "../../../components/admin/form-row";

const all = (n: BudgetTreeNodeView): BudgetTreeNodeView[] => [n, ...n.children.flatMap(all)];

/**
 * Where `node` may go: the nodes the server marked as ones the caller may add under (managesChildren:
 * tree-scope's rule) and that may get children (takesChildren: no jobs charged, no members,
 * parent-rule.ts), neither restated here, less the node, its subtree and its current parent.
 */
export function moveTargets(root: BudgetTreeNodeView, node: BudgetTreeNodeView): string[] {
  return all(root)
    .filter((n) => n.managesChildren && n.takesChildren && n.id !== node.parentId)
    .filter((n) => n.path !== node.path && !n.path.startsWith(node.path + "/"))
    .map((n) => n.path);
}

/**
 * The question asked before a move, saying only what a move does (tree-admin.ts updateTreeNode): the
 * subtree goes whole, with its members and the jobs charged to it, and every share keeps its percentage,
 * now of the new parent.
 */
export function moveQuestion(node: BudgetTreeNodeView, target: string, clusters: readonly string[]): string {
  const budgets = all(node).filter((n) => n.children.length === 0);
  const members = budgets.reduce((s, b) => s + b.members, 0);
  // A count of none reads badly ("Its 0 members"): say only what there is.
  const goes =
    node.children.length === 0
      ? members === 0
        ? "The jobs charged to it go with it."
        : `Its ${plural(members, "member")} and the jobs charged to it go with it.`
      : members === 0
        ? `Its ${plural(budgets.length, "budget")} and the jobs charged to ${budgets.length === 1 ? "it" : "them"} go with it.`
        : `Its ${plural(budgets.length, "budget")}, their ${plural(members, "member")} and the jobs charged to them go with it.`;
  const shares = clusters.map((c) => `${formatPpm(node.perCluster[c]?.ppm ?? 0)} on ${c}`).join(", ");
  const from = node.path.slice(0, node.path.lastIndexOf("/"));
  const keep = clusters.length ? ` Its share stays as it is: ${shares}, now of ${target} instead of ${from}.` : "";
  return `Move ${node.path} under ${target}? It becomes ${target}/${node.name}. ${goes}${keep}`;
}

/** Move on the Budgets page: pick a new parent, confirm in words, then the admins' updateNode mutation. */
export function MoveNode({
  node,
  root,
  clusters,
  onDone,
}: {
  node: BudgetTreeNodeView;
  root: BudgetTreeNodeView;
  clusters: readonly string[];
  /** `path`: where the node is now, after a move that worked */
  onDone: (ok: boolean, text: string, path?: string) => void;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [target, setTarget] = useState("");
  const [asking, setAsking] = useState(false);
  const move = useMutation(trpc.admin.updateNode.mutationOptions());
  useEffect(() => (setTarget(""), setAsking(false)), [node.id]);
  const targets = moveTargets(root, node);
  if (targets.length === 0) return null;
  const go = () =>
    move.mutate(
      { path: node.path, change: { parent: target } },
      {
        onSuccess: (r) => (onDone(true, `Moved ${node.path} to ${r.path}.`, r.path), setTarget("")),
        onError: (e) => onDone(false, errorText(e)),
        onSettled: () => (setAsking(false), void qc.invalidateQueries({ queryKey: trpc.budget.tree.queryKey() })),
      },
    );
  return (
    <>
      <FormRow onSubmit={() => setAsking(true)}>
        <RowSelect
          label={`New parent for ${node.path}`}
          value={target}
          onChange={(v) => (setTarget(v), setAsking(false))}
          options={[["", "move under…"] as const, ...targets.map((p) => [p, p] as const)]}
        />
        <button className="btn" disabled={target === "" || asking}>
          Move
        </button>
      </FormRow>
      {asking ? (
        <MoveConfirm
          question={moveQuestion(node, target, clusters)}
          busy={move.isPending}
          onYes={go}
          onNo={() => setAsking(false)}
        />
      ) : null}
    </>
  );
}

export function MoveConfirm({
  question,
  busy,
  onYes,
  onNo,
}: {
  question: string;
  busy: boolean;
  onYes: () => void;
  onNo: () => void;
}) {
  return (
    <div className="alert" role="group" aria-label="Confirm the move" data-testid="move-confirm">
      <p style={{ margin: "0 0 0.6rem" }}>{question}</p>
      <div className="row">
        <button className="btn primary small" disabled={busy} onClick={onYes}>
          Yes, move it
        </button>
        <button className="btn small" disabled={busy} onClick={onNo}>
          Cancel
        </button>
      </div>
    </div>
  );
}
