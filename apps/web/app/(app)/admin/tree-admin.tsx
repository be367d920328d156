"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { formatPpm } from "@tranche/contracts";
import type { BudgetTreeNodeView } from "@tranche/api";
import { useTRPC } from "../../../lib/trpc";
import { Empty, PageHead } from "../../../components/ui";
import { Notice } from "../../../components/admin/notice";
import { useNotice } from "../../../components/admin/use-action";
import { FormRow, RowInput } from "../../../components/admin/form-row";
import { NodePanel } from "./node-panel";

const flatten = (n: BudgetTreeNodeView | null, depth = 0): { node: BudgetTreeNodeView; depth: number }[] =>
  n ? [{ node: n, depth }, ...n.children.flatMap((c) => flatten(c, depth + 1))] : [];

/** The admin's tree: add, rename, move and archive nodes; shares per cluster; members and managers. */
export function TreeAdmin() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const tree = useQuery(trpc.budget.tree.queryOptions());
  const n = useNotice();
  const [selected, setSelected] = useState<string | null>(null);
  const [rootName, setRootName] = useState("");
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.budget.tree.queryKey() });
  const done = (text: string) => () => {
    n.ok(text);
    void refresh();
  };
  const create = useMutation(trpc.admin.createNode.mutationOptions({ onError: n.fail }));

  const rows = flatten(tree.data?.root ?? null);
  const clusters = tree.data?.clusters ?? [];
  const node = rows.find((r) => r.node.path === selected)?.node ?? null;

  return (
    <>
      <PageHead
        title="Budget tree"
        lede="The lab's tree: divisions and teams are groups, the leaves are budgets that jobs are charged to. Pick a node to change it."
      />
      <Notice notice={n.notice} />
      {tree.data && !tree.data.root ? (
        <section className="panel">
          <div className="panel-head">
            <h2>Start the tree</h2>
          </div>
          <FormRow
            className="panel-body row"
            onSubmit={() => create.mutate({ name: rootName }, { onSuccess: done(`Created the root ${rootName}.`) })}
          >
            <RowInput label="Root name" placeholder="e.g. lab" value={rootName} onChange={setRootName} />
            <button className="btn primary">Create the root</button>
          </FormRow>
        </section>
      ) : null}
      <div className="grid-2">
        <section className="panel">
          <div className="panel-head">
            <h2>Nodes</h2>
          </div>
          {rows.length ? (
            <table className="table" aria-label="Budget tree">
              <thead>
                <tr>
                  <th>Node</th>
                  <th>Kind</th>
                  <th>Members</th>
                  {clusters.map((c) => (
                    <th key={c.id}>Share of parent on {c.name}</th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map(({ node: r, depth }) => (
                  <tr
                    key={r.id}
                    aria-selected={r.path === selected}
                    style={{ background: r.path === selected ? "var(--hover, #eef2ff)" : undefined }}
                  >
                    {/* One line per name: "post-training" broke after its hyphen, centred. */}
                    <td className="nowrap" style={{ paddingLeft: `${0.6 + depth * 1.2}rem` }}>
                      <button className="linkbtn" onClick={() => setSelected(r.path)} aria-label={`Select ${r.path}`}>
                        {r.name}
                      </button>
                    </td>
                    <td className="small">{r.children.length ? "group" : "budget"}</td>
                    <td className="num">{r.children.length ? "" : r.members}</td>
                    {clusters.map((c) => (
                      <td key={c.id} className="num">
                        {r.parentId ? formatPpm(r.perCluster[c.name]?.ppm ?? 0) : "all"}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          ) : !tree.data ? (
            // Loading is not "no tree": a grey block until the tree is known.
            <div className="panel-body">
              <span className="skeleton" style={{ display: "block", height: "6rem" }} aria-label="Loading" />
            </div>
          ) : (
            <Empty title="No tree yet" />
          )}
        </section>
        {node && tree.data?.root ? (
          <NodePanel
            key={node.id}
            node={node}
            root={tree.data.root}
            clusters={clusters.map((c) => c.name)}
            onNotice={n}
            onSelect={setSelected}
          />
        ) : null}
      </div>
    </>
  );
}
