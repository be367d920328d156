"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../../../lib/trpc";
import type { useNotice } from "../../../../components/admin/use-action";
import { FormRow, RowInput } from "../../../../components/admin/form-row";

/** Admins: a new cluster with its GPU type and protection cap (the longest protected time a job may ask). */
export function NewCluster({ onNotice: n }: { onNotice: ReturnType<typeof useNotice> }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [name, setName] = useState("");
  const [gpuType, setGpuType] = useState("");
  const [cap, setCap] = useState("8h");
  const create = useMutation(
    trpc.admin.createCluster.mutationOptions({
      onSuccess: (c) => {
        n.ok(`Created cluster ${c.name}. The whole tree's root holds all of it; give its children shares under Budget tree.`);
        setName("");
        setGpuType("");
        void qc.invalidateQueries({ queryKey: trpc.cluster.list.queryKey() });
      },
      onError: n.fail,
    }),
  );
  return (
    <section className="panel">
      <div className="panel-head">
        <h2>New cluster</h2>
      </div>
      <FormRow className="panel-body row" onSubmit={() => create.mutate({ name, gpuType, maxMinRuntime: cap })}>
        <RowInput label="Cluster name" placeholder="name, e.g. h100" width={180} value={name} onChange={setName} />
        <RowInput label="GPU type" placeholder="GPU type, e.g. H100" width={180} value={gpuType} onChange={setGpuType} />
        <label className="small">
          Longest protection <RowInput label="Protection cap" width={90} value={cap} onChange={setCap} />
        </label>
        <button className="btn primary" disabled={create.isPending}>
          Create cluster
        </button>
      </FormRow>
    </section>
  );
}
