"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { formatExactDuration } from "@tranche/contracts/format";
import { useTRPC } from "../../../../lib/trpc";
import type { useNotice } from "../../../../components/admin/use-action";

/**
 * Admins: the optional squatting policy of each cluster. Off by default; when set, a job flagged as
 * likely squatting for that long loses the rest of its protection (the scheduler's own rule).
 */
export function SquattingPolicy({ onNotice: n }: { onNotice: ReturnType<typeof useNotice> }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const clusters = useQuery(trpc.cluster.list.queryOptions());
  const [cluster, setCluster] = useState("");
  const [after, setAfter] = useState("4h");
  const name = cluster || clusters.data?.[0]?.name || "";
  const current = clusters.data?.find((c) => c.name === name)?.policy.squattingUnprotectAfter ?? null;
  const save = useMutation(
    trpc.admin.updateClusterPolicy.mutationOptions({
      onSuccess: (c) => {
        n.ok(
          c.squattingUnprotectAfter === null
            ? `Cluster ${c.name}: jobs flagged as squatting keep their protection.`
            : `Cluster ${c.name}: a job flagged as squatting for ${formatExactDuration(c.squattingUnprotectAfter)} loses its protection.`,
        );
        void qc.invalidateQueries({ queryKey: trpc.cluster.list.queryKey() });
      },
      onError: n.fail,
    }),
  );
  return (
    <section className="panel">
      <div className="panel-head">
        <h2>Squatting policy</h2>
      </div>
      <div className="panel-body small">
        A job whose GPUs stay under 5% busy for 30 minutes is flagged as likely squatting. By default the flag is only shown; with
        this policy, a job flagged for the time you set loses the rest of its protection and may be preempted.{" "}
        {name ? `On ${name} it is ${current === null ? "off" : `set to ${formatExactDuration(current)}`}.` : null}
      </div>
      <form
        className="panel-body row"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate({ cluster: name, squattingUnprotectAfter: after });
        }}
      >
        <select
          className="select"
          style={{ maxWidth: 180 }}
          aria-label="Cluster for the squatting policy"
          value={name}
          onChange={(e) => setCluster(e.target.value)}
        >
          {(clusters.data ?? []).map((c) => (
            <option key={c.id} value={c.name}>
              {c.name}
            </option>
          ))}
        </select>
        <label className="small">
          End protection after flagged for{" "}
          <input
            className="input"
            style={{ maxWidth: 90 }}
            aria-label="Flagged time before protection ends"
            value={after}
            onChange={(e) => setAfter(e.target.value)}
          />
        </label>
        <button className="btn primary" disabled={!name || save.isPending}>
          Set
        </button>
        <button
          type="button"
          className="btn"
          disabled={!name || save.isPending || current === null}
          onClick={() => save.mutate({ cluster: name, squattingUnprotectAfter: null })}
        >
          Turn off
        </button>
      </form>
    </section>
  );
}
