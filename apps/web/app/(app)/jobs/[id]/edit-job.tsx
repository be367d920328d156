"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { JobView } from "@tranche/contracts";
import { useTRPC } from "../../../../lib/trpc";
import { BudgetSelect, TextField } from "../../../../components/job-fields";
import { errorText, fieldIssues } from "../../../../lib/error-text";
import { MIN_RUNTIME_HINT } from "../../../../lib/words";
import { editChange, editStateOf, type EditErrors, type EditState } from "./edit-input";

/**
 * The Edit form of a pending or held job: the fields `tranche update` changes, pre-filled, in the
 * submit form's words. The job keeps its id and its place in its budget's queue.
 */
export function EditJob({ job, mine, onDone }: { job: JobView; mine: boolean; onDone: (message: string | null) => void }) {
  const trpc = useTRPC();
  // The owner picks among their budgets; an operator or admin changing someone's job types the path.
  const budgets = useQuery({ ...trpc.me.budgets.queryOptions(), enabled: mine });
  const [f, setF] = useState<EditState>(() => editStateOf(job));
  const [errors, setErrors] = useState<EditErrors>({});
  const set = (k: keyof EditState, v: string) => {
    setF((s) => ({ ...s, [k]: v }));
    setErrors(({ [k]: _drop, ...rest }) => rest);
  };
  const update = useMutation(
    trpc.job.update.mutationOptions({
      onSuccess: ({ job: after, changed }) =>
        onDone(
          changed
            ? `Job #${after.id} is changed and keeps its place in the queue.`
            : `Job #${after.id} already has these values; nothing changed.`,
        ),
      onError: (err) => {
        const field = (err.data as { field?: string | null } | undefined)?.field;
        const issues = fieldIssues(err);
        if (issues.length) setErrors(Object.fromEntries(issues.map((i) => [i.path.split(".")[0] || "form", i.message])));
        else setErrors({ [field ?? "form"]: errorText(err) });
      },
    }),
  );
  const field = (
    k: Exclude<keyof EditState, "budget">,
    label: string,
    o: { numeric?: boolean; hint?: string; placeholder?: string } = {},
  ) => <TextField id={`edit-${k}`} label={label} value={f[k]} onChange={(v) => set(k, v)} error={errors[k]} {...o} />;

  return (
    <section className="panel" data-testid="edit-job">
      <div className="panel-head">
        <h2>Edit job #{job.id}</h2>
      </div>
      <form
        className="panel-body form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          const v = editChange(job, f);
          setErrors(v.errors);
          if (v.input) update.mutate({ id: job.id, ...v.input });
        }}
      >
        {errors.form ? (
          <div className="alert bad" role="alert">
            {errors.form}
          </div>
        ) : null}
        <div className="form-grid">
          {mine ? (
            <BudgetSelect
              id="edit-budget"
              value={f.budget}
              budgets={budgets.data}
              onChange={(v) => set("budget", v)}
              error={errors.budget}
            />
          ) : (
            <TextField
              id="edit-budget"
              label="Budget"
              value={f.budget}
              onChange={(v) => set("budget", v)}
              error={errors.budget}
              hint="The budget its GPU time is charged to."
            />
          )}
          {field("gpus", "GPUs", { numeric: true, hint: "On one node, or whole nodes." })}
          {field("minRuntime", "Minimum runtime (protected)", { hint: MIN_RUNTIME_HINT })}
          {field("maxRuntime", "Maximum runtime (optional)", { placeholder: "none", hint: "Killed after this long." })}
          {field("priority", "Priority within the budget", {
            numeric: true,
            hint: "Orders only your budget's jobs; it never jumps other budgets.",
          })}
          {field("name", "Name")}
        </div>
        <div className="row">
          <button className="btn primary" type="submit" disabled={update.isPending}>
            Save changes
          </button>
          <button className="btn ghost" type="button" onClick={() => onDone(null)}>
            Close
          </button>
        </div>
      </form>
    </section>
  );
}
