"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../../../lib/trpc";
import type { useNotice } from "../../../../components/admin/use-action";
import { FormRow, RowInput, RowSelect } from "../../../../components/admin/form-row";
import { plural } from "../../../../lib/words";

type Field = "debugReservePercent" | "debugMaxGpusPerUser" | "debugVictimMaxGpuHours";
/** Each setting: its field, the words beside its box, and the box's name for screen readers and tests. */
const FIELDS: readonly (readonly [Field, string, string])[] = [
  ["debugReservePercent", "GPUs kept free (%)", "Debug reserve, percent of GPUs"],
  ["debugMaxGpusPerUser", "GPUs per user", "Debug GPUs per user"],
  ["debugVictimMaxGpuHours", "Most work a preempted run may lose (GPU-hours)", "Debug victim limit, GPU-hours"],
];

/** A typed value as a number; words become NaN, which the server refuses naming the field and what it takes. */
const asNumber = (v: string): number => (v.trim() === "" ? Number.NaN : Number(v.trim()));

/**
 * Admins: the debug lane's settings of each cluster (R5). The reserve other work leaves free for
 * debug jobs, the GPUs one user may hold in the lane, and the most work a debug job may make one
 * preempted run lose. Each starts at the scheduler's default; only the fields changed are sent.
 */
export function DebugLanePolicy({ onNotice: n }: { onNotice: ReturnType<typeof useNotice> }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const clusters = useQuery(trpc.cluster.list.queryOptions());
  const [cluster, setCluster] = useState("");
  const [edits, setEdits] = useState<Partial<Record<Field, string>>>({});
  const name = cluster || clusters.data?.[0]?.name || "";
  const current = clusters.data?.find((c) => c.name === name)?.policy;
  const shown = (f: Field) => edits[f] ?? (current ? String(current[f]) : "");
  const save = useMutation(
    trpc.admin.updateClusterPolicy.mutationOptions({
      onSuccess: (p) => {
        n.ok(
          `Cluster ${p.name}: debug jobs find ${p.debugReservePercent}% of the GPUs kept for them, a user may hold ` +
            `${plural(p.debugMaxGpusPerUser, "GPU")} in the lane, and a debug job may make a preempted run lose at most ` +
            `${plural(p.debugVictimMaxGpuHours, "GPU-hour")}.`,
        );
        setEdits({});
        void qc.invalidateQueries({ queryKey: trpc.cluster.list.queryKey() });
      },
      onError: n.fail,
    }),
  );
  const changed = FIELDS.map(([f]) => f).filter(
    (f) => edits[f] !== undefined && edits[f] !== (current ? String(current[f]) : ""),
  );
  return (
    <section className="panel">
      <div className="panel-head">
        <h2>Debug lane</h2>
      </div>
      <div className="panel-body small">
        Short jobs (15 minutes or less, on 8 GPUs or fewer) start in the debug lane ahead of the queue. Other work leaves a share
        of the GPUs free for them; beyond that, a debug job may preempt a run that would lose little work. The cap per user keeps
        the lane from becoming a way around the queue.
      </div>
      <FormRow
        className="panel-body row"
        onSubmit={() => save.mutate({ cluster: name, ...Object.fromEntries(changed.map((f) => [f, asNumber(edits[f]!)])) })}
      >
        <RowSelect
          label="Cluster for the debug lane"
          width={180}
          value={name}
          onChange={(c) => {
            setCluster(c);
            setEdits({});
          }}
          options={(clusters.data ?? []).map((c) => [c.name, c.name] as const)}
        />
        {FIELDS.map(([f, text, label]) => (
          <label key={f} className="small">
            {text} <RowInput label={label} width={70} value={shown(f)} onChange={(v) => setEdits((e) => ({ ...e, [f]: v }))} />
          </label>
        ))}
        <button className="btn primary" disabled={!name || save.isPending || changed.length === 0}>
          Save
        </button>
        <button
          type="button"
          className="btn"
          disabled={!name || save.isPending}
          onClick={() =>
            save.mutate({ cluster: name, debugReservePercent: null, debugMaxGpusPerUser: null, debugVictimMaxGpuHours: null })
          }
        >
          Restore defaults
        </button>
      </FormRow>
    </section>
  );
}
