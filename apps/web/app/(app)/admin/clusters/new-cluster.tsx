"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../../../lib/trpc";
import type { useNotice } from "../../../../components/admin/use-action";

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
      <form
        className="panel-body row"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ name, gpuType, maxMinRuntime: cap });
        }}
      >
        <input
          className="input"
          style={{ maxWidth: 180 }}
          aria-label="Cluster name"
          placeholder="name, e.g. h100"
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
        <input
          className="input"
          style={{ maxWidth: 180 }}
          aria-label="GPU type"
          placeholder="GPU type, e.g. H100"
          value={gpuType}
          onChange={(e) => setGpuType(e.target.value)}
        />
        <label className="small">
          Longest protection{" "}
          <input
            className="input"
            style={{ maxWidth: 90 }}
            aria-label="Protection cap"
            value={cap}
            onChange={(e) => setCap(e.target.value)}
          />
        </label>
        <button className="btn primary" disabled={create.isPending}>
          Create cluster
        </button>
      </form>
    </section>
  );
}
