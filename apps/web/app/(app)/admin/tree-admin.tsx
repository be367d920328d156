"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { formatPpm, parsePercentToPpm } from "@tranche/contracts";
import type { BudgetTreeNodeView } from "@tranche/api";
import { useTRPC } from "../../../lib/trpc";
import { archiveQuestion } from "../../../lib/confirm-words";
import { Empty, PageHead } from "../../../components/ui";
import { Notice } from "../../../components/admin/notice";
import { useNotice } from "../../../components/admin/use-action";
import { NodePeople } from "./node-people";
import { FormRow, RowInput, RowSelect } from "../../../components/admin/form-row";

const flatten = (n: BudgetTreeNodeView | null, depth = 0): { node: BudgetTreeNodeView; depth: number }[] =>
  n ? [{ node: n, depth }, ...n.children.flatMap((c) => flatten(c, depth + 1))] : [];

/** The admin's tree: add, rename, move and archive nodes; shares per cluster; members and managers. */
export function TreeAdmin() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const tree = useQuery(trpc.budget.tree.queryOptions());
  const n = useNotice();
  const [selected, setSelected] = useState<string | null>(null);
  const [childName, setChildName] = useState("");
  const [rename, setRename] = useState("");
  const [moveTo, setMoveTo] = useState("");
  const [cluster, setCluster] = useState("");
  const [share, setShare] = useState("");
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.budget.tree.queryKey() });
  const done = (text: string) => () => {
    n.ok(text);
    void refresh();
  };
  const create = useMutation(trpc.admin.createNode.mutationOptions({ onError: n.fail }));
  const update = useMutation(trpc.admin.updateNode.mutationOptions({ onError: n.fail }));
  const archive = useMutation(trpc.admin.archiveNode.mutationOptions({ onError: n.fail }));
  const setShareM = useMutation(trpc.admin.setShare.mutationOptions({ onError: n.fail }));

  const rows = flatten(tree.data?.root ?? null);
  const clusters = tree.data?.clusters ?? [];
  const node = rows.find((r) => r.node.path === selected)?.node ?? null;
  const clusterName = cluster || clusters[0]?.name || "";

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
            onSubmit={() => create.mutate({ name: childName }, { onSuccess: done(`Created the root ${childName}.`) })}
          >
            <RowInput label="Root name" placeholder="e.g. lab" value={childName} onChange={setChildName} />
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
        {node ? (
          <section className="panel" aria-label={`Change ${node.path}`}>
            <div className="panel-head">
              <h2>{node.path}</h2>
            </div>
            <div className="panel-body stack">
              <FormRow
                onSubmit={() =>
                  create.mutate({ parent: node.path, name: childName }, { onSuccess: done(`Created ${node.path}/${childName}.`) })
                }
              >
                <RowInput label="New child name" placeholder="child name" value={childName} onChange={setChildName} />
                <button className="btn">Add a child</button>
              </FormRow>
              <FormRow
                onSubmit={() =>
                  update.mutate(
                    { path: node.path, change: { name: rename } },
                    { onSuccess: (r) => (setSelected(r.path), done(`Renamed to ${r.path}.`)()) },
                  )
                }
              >
                <RowInput label="New name" placeholder="new name" value={rename} onChange={setRename} />
                <button className="btn">Rename</button>
              </FormRow>
              {node.parentId ? (
                <FormRow
                  onSubmit={() =>
                    update.mutate(
                      { path: node.path, change: { parent: moveTo } },
                      { onSuccess: (r) => (setSelected(r.path), done(`Moved to ${r.path}.`)()) },
                    )
                  }
                >
                  <RowSelect
                    label="New parent"
                    value={moveTo}
                    onChange={setMoveTo}
                    options={[
                      ["", "move under…"] as const,
                      ...rows
                        .filter((r) => r.node.path !== node.path && !r.node.path.startsWith(node.path + "/"))
                        .map((r) => [r.node.path, r.node.path] as const),
                    ]}
                  />
                  <button className="btn" disabled={!moveTo}>
                    Move
                  </button>
                </FormRow>
              ) : null}
              {node.parentId && clusters.length ? (
                <FormRow
                  onSubmit={() => {
                    const ppm = parsePercentToPpm(share);
                    if (ppm === null) return n.fail({ message: "Share: give a percentage such as 30%." });
                    setShareM.mutate(
                      { path: node.path, cluster: clusterName, share: ppm / 1_000_000 },
                      { onSuccess: done(`${node.path} now has ${formatPpm(ppm)} of its parent's share on ${clusterName}.`) },
                    );
                  }}
                >
                  <RowSelect
                    label="Cluster"
                    value={clusterName}
                    onChange={setCluster}
                    options={clusters.map((c) => [c.name, c.name] as const)}
                  />
                  <RowInput label="Share of the parent" placeholder="e.g. 30%" width={110} value={share} onChange={setShare} />
                  <button className="btn">Set share</button>
                </FormRow>
              ) : null}
              <div>
                <button
                  className="btn danger small"
                  onClick={() => {
                    if (confirm(archiveQuestion(node.path)))
                      archive.mutate(
                        { path: node.path },
                        { onSuccess: () => (setSelected(null), done(`Archived ${node.path}.`)()) },
                      );
                  }}
                >
                  Archive {node.name}
                </button>
              </div>
              <NodePeople path={node.path} isBudget={node.children.length === 0} onNotice={n} />
            </div>
          </section>
        ) : null}
      </div>
    </>
  );
}
