"use client";
import { useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { JobAction, JobActionResult, JobState } from "@tranche/contracts";
import { jobActionDoneText, jobActionQuestion } from "@tranche/contracts/format";
import { useTRPC } from "../../../lib/trpc";
import { errorText } from "../../../lib/error-text";

/** The jobs a list lets one choose: those a cancel, hold or release may still change. */
export const SELECTABLE: readonly JobState[] = ["PENDING", "HELD", "RUNNING"];

const BUTTONS: [JobAction, string][] = [
  ["hold", "Hold selected"],
  ["release", "Release selected"],
  ["cancel", "Cancel selected"],
];

/**
 * My jobs' buttons for the jobs ticked in the list (`tranche cancel 41 42 43`): each asks first, saying how
 * many jobs it touches, as the array page's buttons do, then says what it did and, job by job, what it
 * could not do and why (each job goes by its own rule: a running job cannot be held).
 */
export function BulkActions({ ids, onDone }: { ids: number[]; onDone: () => void }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [result, setResult] = useState<JobActionResult | { error: string } | null>(null);
  const act = useMutation(
    trpc.job.act.mutationOptions({
      onSuccess: (r) => {
        // Ids and no dryRun: the answer is always what was done, never a preview.
        setResult(r as JobActionResult);
        onDone();
        void qc.invalidateQueries({ queryKey: trpc.job.rows.queryKey() });
      },
      onError: (e) => setResult({ error: errorText(e) }),
    }),
  );
  return (
    <div className="panel-body" data-testid="bulk-actions">
      {result ? <ResultNotice result={result} /> : null}
      <div className="row">
        <span className="muted">{ids.length === 0 ? "Tick jobs to act on several at once." : `${ids.length} selected:`}</span>
        {BUTTONS.map(([action, label]) => (
          <button
            key={action}
            type="button"
            className={action === "cancel" ? "btn danger" : "btn"}
            disabled={ids.length === 0 || act.isPending}
            onClick={() => {
              if (confirm(jobActionQuestion(action, ids.length))) act.mutate({ action, ids });
            }}
          >
            {label}
          </button>
        ))}
      </div>
    </div>
  );
}

function ResultNotice({ result }: { result: JobActionResult | { error: string } }) {
  if ("error" in result)
    return (
      <div className="alert bad" role="alert" style={{ marginBottom: "0.8rem" }}>
        {result.error}
      </div>
    );
  const refused = result.refused.length > 0;
  return (
    <div className={`alert ${refused ? "bad" : "ok"}`} role={refused ? "alert" : "status"} style={{ marginBottom: "0.8rem" }}>
      {jobActionDoneText(result)}
      {refused ? (
        <ul style={{ margin: "0.4rem 0 0" }}>
          {result.refused.map((r) => (
            <li key={r.id}>
              #{r.id}: {r.reason}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
