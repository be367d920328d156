"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useMemo, useState } from "react";
import {
  defaultJobName,
  explainContract,
  formatExactDuration,
  missingUnitProblem,
  parseDuration,
  runtimeOrderProblem,
} from "@tranche/contracts";
import { useTRPC } from "../../../lib/trpc";
import { BudgetSelect, ClusterSelect, TextField, type TextFieldProps } from "../../../components/job-fields";
import { LaneBadge } from "../../../components/ui";
import { errorText, fieldIssues } from "../../../lib/error-text";
import { MIN_RUNTIME_HINT, noBudgetWords } from "../../../lib/words";
import {
  FORM_FIELDS,
  NEW_JOB_FORM,
  fieldCount,
  serverFieldErrors,
  unitProblems,
  validate,
  type Errors,
  type FormState,
} from "./submit-input";

const MIN_PRESETS = ["0", "30m", "2h", "4h", "8h"];

/** The form's free-text fields (every string field but the two selects). */
type TextKey =
  | "gpus"
  | "minRuntime"
  | "maxRuntime"
  | "priority"
  | "gracePeriod"
  | "command"
  | "env"
  | "secretEnv"
  | "name"
  | "array"
  | "after"
  | "retries"
  | "nodes"
  | "excludeNodes";

export function SubmitForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const clusters = useQuery(trpc.cluster.list.queryOptions());
  const budgets = useQuery(trpc.me.budgets.queryOptions());
  const [f, setF] = useState<FormState>(NEW_JOB_FORM);
  const [errors, setErrors] = useState<Errors>({});
  const [serverError, setServerError] = useState<string | null>(null);
  const cluster = f.cluster || clusters.data?.[0]?.name || "";
  const budget = f.budget || budgets.data?.[0]?.path || "";
  const state = { ...f, cluster, budget };
  /** Every field's problem beside it, and the first of them in view, so none is met only on the next try. */
  const showErrors = (e: Errors) => {
    setErrors(e);
    // The first in the form's order, top to bottom.
    const first = [...FORM_FIELDS].find((k) => k !== "form" && k in e);
    if (first) requestAnimationFrame(() => document.getElementById(first)?.focus());
  };
  const set = <K extends keyof FormState>(k: K, v: FormState[K]) => {
    setF((s) => ({ ...s, [k]: v }));
    setErrors((e) => {
      const { [k]: _drop, ...rest } = e;
      return rest;
    });
  };
  const submit = useMutation(
    trpc.job.submit.mutationOptions({
      onSuccess: (job) => router.push(`/jobs/${job.id}?submitted=1`),
      onError: (err) => {
        const data = err.data as { field?: string | null; issues?: { path: string; message: string }[] | null } | undefined;
        const field = data?.field;
        // The schema's issues, else the cluster's checks of the contract (each problem at its field).
        const issues = fieldIssues(err).length > 0 ? fieldIssues(err) : (data?.issues ?? []);
        if (issues.length) showErrors(serverFieldErrors(issues));
        else if (field) showErrors({ [FORM_FIELDS.has(field) ? field : "form"]: err.message });
        else setServerError(errorText(err));
      },
    }),
  );

  const selectedCluster = clusters.data?.find((c) => c.name === cluster);
  const unitErrors = unitProblems(state);
  const words = useMemo(() => {
    const gpus = Number(state.gpus) || 0;
    // A bare number has no unit yet (unitProblems): the preview reads no time from it.
    const read = (v: string) => (missingUnitProblem("", v) === null ? parseDuration(v) : null);
    const min = read(state.minRuntime) ?? 0;
    const max = state.debug || state.maxRuntime.trim() ? read(state.maxRuntime) : null;
    const grace = state.gracePeriod.trim() ? read(state.gracePeriod) : null;
    return {
      w: explainContract({
        gpus,
        minRuntime: Math.max(0, min),
        maxRuntime: max,
        resumable: state.resumable,
        requeue: state.requeue,
        gracePeriod: grace,
      }),
      min,
      max,
    };
  }, [state.gpus, state.minRuntime, state.maxRuntime, state.debug, state.resumable, state.requeue, state.gracePeriod]);

  /** One text field, wired to the form state and its error. */
  const textField = (
    k: TextKey,
    label: TextFieldProps["label"],
    o: Omit<TextFieldProps, "id" | "label" | "value" | "onChange"> = {},
  ) => <TextField id={k} label={label} value={state[k]} onChange={(v) => set(k, v)} error={errors[k] ?? unitErrors[k]} {...o} />;

  // Said as soon as it is typed (the server refuses it): the preview would show "killed" before "protected until".
  const order = runtimeOrderProblem(words.min, words.max);
  const horizon = Math.max(words.max ?? 0, words.min * 1.6, 3600);
  const protW = Math.min(100, (Math.min(words.min, words.max ?? Infinity) / horizon) * 100);
  const restW = words.max !== null ? Math.max(0, ((words.max - Math.min(words.min, words.max)) / horizon) * 100) : 100 - protW;

  return (
    <form
      className="grid-2"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        setServerError(null);
        const v = validate(state);
        showErrors(v.errors);
        if (v.input) submit.mutate(v.input);
      }}
    >
      <div className="panel">
        <div className="panel-head">
          <h2>Job</h2>
        </div>
        <div className="panel-body form">
          {serverError ? (
            <div className="alert bad" role="alert">
              {serverError}
            </div>
          ) : null}
          {errors.form ? (
            <div className="alert bad" role="alert">
              {errors.form}
            </div>
          ) : null}
          {fieldCount(errors) > 1 ? (
            <p className="field-error" data-testid="form-problems">
              {fieldCount(errors)} fields need fixing: each says what is wrong below it.
            </p>
          ) : null}
          <div className="form-grid">
            <ClusterSelect
              id="cluster"
              value={cluster}
              clusters={clusters.data}
              onChange={(v) => set("cluster", v)}
              error={errors.cluster}
            />
            <BudgetSelect
              id="budget"
              value={budget}
              budgets={budgets.data}
              onChange={(v) => set("budget", v)}
              error={errors.budget}
            />
            {textField("gpus", "GPUs", {
              numeric: true,
              hint: (
                <>
                  Up to {selectedCluster?.nodeSize ?? 8} on one node, or whole nodes ({(selectedCluster?.nodeSize ?? 8) * 2},{" "}
                  {(selectedCluster?.nodeSize ?? 8) * 4}, …).
                </>
              ),
            })}
            {textField("minRuntime", "Minimum runtime (protected)", {
              hint: MIN_RUNTIME_HINT,
              extra: (
                <div className="row" style={{ gap: "0.3rem" }}>
                  {MIN_PRESETS.map((p) => (
                    <button key={p} type="button" className="btn small ghost" onClick={() => set("minRuntime", p)}>
                      {p === "0" ? "0 (unallocated)" : p}
                    </button>
                  ))}
                </div>
              ),
            })}
            <label className="check full">
              <input type="checkbox" checked={state.resumable} onChange={(e) => set("resumable", e.target.checked)} />
              <span>
                <strong>Resumable</strong>
                <span className="hint">It restarts from its own checkpoints, so it is requeued after a preemption.</span>
              </span>
            </label>
            {!state.resumable ? (
              <label className="check full">
                <input type="checkbox" checked={state.requeue} onChange={(e) => set("requeue", e.target.checked)} />
                <span>
                  <strong>Requeue anyway if preempted</strong>
                  <span className="hint">Start it again from the beginning after a preemption.</span>
                </span>
              </label>
            ) : null}
            <label className="check">
              <input
                type="checkbox"
                checked={state.debug}
                onChange={(e) => {
                  set("debug", e.target.checked);
                  if (e.target.checked && !state.maxRuntime) set("maxRuntime", "15m");
                }}
              />
              <span>
                <strong>Debug lane</strong>
                <span className="hint">≤ 15 min and ≤ 8 GPUs: starts ahead of regular work.</span>
              </span>
            </label>
            {textField("maxRuntime", `Maximum runtime ${state.debug ? "" : "(optional)"}`, {
              placeholder: "none",
              hint: "Killed after this long.",
              error: errors.maxRuntime ?? order ?? undefined,
            })}
            {textField("priority", "Priority within the budget", {
              numeric: true,
              hint: "Orders only your budget's jobs; it never jumps other budgets.",
            })}
            {textField("gracePeriod", "Grace period (optional)", {
              placeholder: "default: 2 min",
              hint: "How long it has to save its work once asked to stop, before it is stopped by force; at most 10 min.",
            })}
            {textField("command", "Command", {
              multiline: true,
              full: true,
              placeholder: "torchrun --nproc-per-node 8 train.py --resume",
            })}
            {textField("env", "Environment (KEY=VALUE per line)", { multiline: true, style: { minHeight: 64 } })}
            {textField("secretEnv", "Secret environment (KEY=VALUE per line)", {
              multiline: true,
              style: { minHeight: 48 },
              hint: "Handed to the job; nobody, you included, can read the values after submitting.",
            })}
            {textField("name", "Name (optional)", {
              // The name the job gets without one: the same function the server applies.
              placeholder: state.command.trim() ? defaultJobName(state.command) : "from the command",
            })}
            {textField("array", "Job array (optional)", {
              placeholder: "e.g. 0-99%10",
              hint: "One job per index (in TRANCHE_ARRAY_INDEX); %N: at most N running at once. Up to 10,000.",
            })}
            {textField("after", "Start after (optional)", {
              placeholder: "e.g. 81:ok 94:any",
              hint: "Job ids: :ok (default) waits for success, :any for any end.",
            })}
            {textField("retries", "Retries on failure", {
              numeric: true,
              hint: "Requeued up to this many times (0-10) when it exits with an error.",
            })}
            {textField("nodes", "Run only on nodes (optional)", {
              placeholder: "e.g. gpu-[03-05],gpu-07",
              hint: "Names of this cluster's nodes, as Slurm's --nodelist; it waits for these even when others are free.",
            })}
            {textField("excludeNodes", "Never on nodes (optional)", {
              placeholder: "e.g. gpu-07",
              hint: "Nodes it must avoid, as Slurm's --exclude.",
            })}
          </div>
          <div className="row">
            <button
              className="btn primary"
              type="submit"
              disabled={submit.isPending || noBudgetWords(budgets.data) !== null || order !== null}
            >
              {submit.isPending ? "Submitting…" : "Submit job"}
            </button>
            <span className="muted small">Nothing is stored unless every field is valid.</span>
          </div>
        </div>
      </div>

      <aside className="stack" style={{ position: "sticky", top: "1.5rem" }}>
        <div className="contract" data-testid="contract">
          <h3>
            Your contract <LaneBadge lane={words.w.lane} />
          </h3>
          <p>
            <strong>{words.w.headline}</strong>
          </p>
          <ul>
            {words.w.sentences.map((s) => (
              <li key={s}>{s}</li>
            ))}
          </ul>
          {order ? (
            <p className="field-error" data-testid="runtime-order">
              {order}.
            </p>
          ) : null}
          <div className="timeline-bar" aria-hidden>
            {words.min > 0 ? <div className="prot" style={{ width: `${protW}%` }} /> : null}
            <div className={words.min > 0 ? "intr" : "free"} style={{ width: `${words.min > 0 ? restW : 100}%` }} />
          </div>
          <div className="timeline-legend">
            <span>start</span>
            {words.min > 0 ? (
              <span>protected until +{formatExactDuration(words.min)}</span>
            ) : (
              <span>preemptible from the start</span>
            )}
            <span>{words.max !== null ? `killed at +${formatExactDuration(words.max)}` : "runs until done"}</span>
          </div>
        </div>
        <div className="panel">
          <div className="panel-body small muted">
            <p style={{ marginTop: 0 }}>
              <strong style={{ color: "var(--ink-2)" }}>How your wait is decided.</strong> Pending jobs are taken budget by
              budget: the budget whose usage is lowest compared with its entitlement over the last 7 days goes first. Inside your
              budget, priority and then submit time decide.
            </p>
            <p style={{ marginBottom: 0 }}>
              Longer protection is not free: while protected, your GPUs count against your budget&apos;s share.
            </p>
          </div>
        </div>
      </aside>
    </form>
  );
}
