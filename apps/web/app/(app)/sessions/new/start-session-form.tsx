"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { missingUnitProblem } from "@tranche/contracts";
import { useTRPC } from "../../../../lib/trpc";
import { errorText, fieldIssues } from "../../../../lib/error-text";
import { noBudgetWords } from "../../../../lib/words";
import { BudgetSelect, ClusterSelect, TextField } from "../../../../components/job-fields";

/** The "Start a session" form: the same request as `tranche session` (the server checks everything). */
export function StartSessionForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const clusters = useQuery(trpc.cluster.list.queryOptions());
  const budgets = useQuery(trpc.me.budgets.queryOptions());
  const [f, setF] = useState({ cluster: "", budget: "", gpus: "1", minRuntime: "4h", jupyter: false });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [serverError, setServerError] = useState<string | null>(null);
  const cluster = f.cluster || clusters.data?.[0]?.name || "";
  const budget = f.budget || budgets.data?.[0]?.path || "";
  const start = useMutation(
    trpc.job.startSession.mutationOptions({
      onSuccess: (job) => router.push(`/jobs/${job.id}?submitted=1`),
      onError: (err) => {
        const field = (err.data as { field?: string | null } | undefined)?.field;
        const issues = fieldIssues(err);
        if (issues.length) setErrors(Object.fromEntries(issues.map((i) => [i.path.split(".")[0] || "form", i.message])));
        else if (field) setErrors({ [field]: err.message });
        else setServerError(errorText(err));
      },
    }),
  );
  return (
    <form
      className="panel"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        setErrors({});
        setServerError(null);
        // A bare number is refused, as on the submit form and in the CLI: "90" read as 90 s, not 90 min.
        const unit = missingUnitProblem("Minimum runtime", f.minRuntime);
        if (unit !== null) return setErrors({ minRuntime: unit });
        const gpus = Number(f.gpus);
        start.mutate({ cluster, budget, gpus: Number.isFinite(gpus) ? gpus : 0, minRuntime: f.minRuntime, jupyter: f.jupyter });
      }}
    >
      <div className="panel-body form">
        {serverError || errors.form ? (
          <div className="alert bad" role="alert">
            {serverError ?? errors.form}
          </div>
        ) : null}
        <div className="form-grid">
          <ClusterSelect
            id="session-cluster"
            value={cluster}
            clusters={clusters.data}
            onChange={(v) => setF({ ...f, cluster: v })}
            error={errors.cluster}
          />
          <BudgetSelect
            id="session-budget"
            value={budget}
            budgets={budgets.data}
            onChange={(v) => setF({ ...f, budget: v })}
            error={errors.budget}
          />
          <TextField
            id="session-gpus"
            label="GPUs"
            numeric
            value={f.gpus}
            onChange={(v) => setF({ ...f, gpus: v })}
            error={errors.gpus}
          />
          <TextField
            id="session-min"
            label="Protected for"
            value={f.minRuntime}
            onChange={(v) => setF({ ...f, minRuntime: v })}
            hint="Nothing preempts it for this long after each start (e.g. 4h); you can extend it later."
            error={errors.minRuntime}
          />
          <div className="field full">
            <label className="row" style={{ gap: "0.4rem" }}>
              <input type="checkbox" checked={f.jupyter} onChange={(e) => setF({ ...f, jupyter: e.target.checked })} /> Jupyter
              instead of the shell (it must be installed on the cluster&apos;s nodes)
            </label>
          </div>
        </div>
        <div className="row">
          <button className="btn primary" type="submit" disabled={start.isPending || noBudgetWords(budgets.data) !== null}>
            Start a session
          </button>
        </div>
      </div>
    </form>
  );
}
