"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { BudgetTreeNodeView } from "@tranche/domain";
import { useTRPC } from "../../../lib/trpc";
import { archiveQuestion } from "../../../lib/confirm-words";
import { errorText } from "../../../lib/error-text";
import { Notice } from "../../../components/admin/notice";
import { useNotice } from "../../../components/admin/use-action";
import { FormRow, RowInput } from "../../../components/admin/form-row";
import { AddChild } from "./add-child";
import { MoveNode } from "./move-node";

/**
 * The tree's shape where the signed-in person manages it (admins: everywhere): a new budget under the
 * selected node; renaming, moving or archiving the node itself only strictly inside their subtree, never the
 * node they were given. The same procedures as the admins' tree page; the server checks again.
 */
export function TreeShape({
  node,
  root,
  clusters,
  onArchived,
}: {
  node: BudgetTreeNodeView;
  root: BudgetTreeNodeView;
  clusters: readonly string[];
  onArchived: (parentId: string | null) => void;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const n = useNotice();
  const [newName, setNewName] = useState("");
  const fail = (e: unknown) => n.fail({ message: errorText(e) });
  const refresh = () => void qc.invalidateQueries({ queryKey: trpc.budget.tree.queryKey() });
  const update = useMutation(trpc.admin.updateNode.mutationOptions({ onError: fail }));
  const archive = useMutation(trpc.admin.archiveNode.mutationOptions({ onError: fail }));
  // Names typed belong to the node they were typed for; the last message stays ("Archived ..." is
  // said after the selection has moved to the parent).
  useEffect(() => setNewName(""), [node.id]);
  if (!node.managesChildren) return null;
  return (
    <section className="panel" data-testid="tree-shape" style={{ marginBottom: "1.25rem" }}>
      <div className="panel-head">
        <h2>
          Shape <span className="mono">{node.path}</span>
        </h2>
        <span className="muted small">budgets and groups inside the subtree you manage</span>
      </div>
      <div className="panel-body stack">
        <Notice notice={n.notice} />
        <AddChild key={node.id} node={node} notice={n} />
        {node.editable ? (
          <>
            <FormRow
              onSubmit={() =>
                update.mutate(
                  { path: node.path, change: { name: newName.trim() } },
                  { onSuccess: (r) => (n.ok(`Renamed ${node.path} to ${r.path}.`), setNewName(""), refresh()) },
                )
              }
            >
              <RowInput label={`New name for ${node.path}`} placeholder="new name" value={newName} onChange={setNewName} />
              <button className="btn" disabled={update.isPending || newName.trim() === ""}>
                Rename
              </button>
            </FormRow>
            <MoveNode
              node={node}
              root={root}
              clusters={clusters}
              onDone={(ok, text) => (ok ? n.ok(text) : n.fail({ message: text }))}
            />
            <div>
              <button
                className="btn danger small"
                disabled={archive.isPending}
                onClick={() => {
                  if (confirm(archiveQuestion(node.path)))
                    archive.mutate(
                      { path: node.path },
                      { onSuccess: (r) => (n.ok(`Archived ${r.path}.`), onArchived(node.parentId), refresh()) },
                    );
                }}
              >
                Archive {node.name}
              </button>
            </div>
          </>
        ) : null}
      </div>
    </section>
  );
}
