"use client";
import Link from "next/link";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { JobState } from "@tranche/contracts";
import { useTRPC } from "../../../../lib/trpc";
import { errorText } from "../../../../lib/error-text";
import { plural } from "../../../../lib/words";
import {
  arrayCounts,
  arrayHeldText,
  arrayReleasedText,
  arrayListCutText,
  arrayStateParts,
  holdArrayQuestion,
  releaseArrayQuestion,
} from "../../../../lib/array-words";
import { Notice } from "../../../../components/admin/notice";
import { useNotice } from "../../../../components/admin/use-action";

/**
 * An array's tasks at a glance and what can be done to them all (`tranche hold --array`, `release
 * --array`, `cancel --array`): a researcher with 100 tasks held, released or cancelled them one job
 * page at a time. Each button asks first, saying how many tasks it touches, and says what it did.
 * The counts by state choose which tasks the list below shows ("5 failed": those five, not 100 rows).
 */
export function ArrayPanel({
  id,
  state,
  onState,
}: {
  id: number;
  state: JobState | null;
  onState: (s: JobState | null) => void;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const view = useQuery({ ...trpc.job.array.queryOptions({ id }), refetchInterval: 2000 });
  const notice = useNotice();
  const done = (text: string) => {
    notice.ok(text);
    void qc.invalidateQueries({ queryKey: trpc.job.array.queryKey({ id }) });
    void qc.invalidateQueries({ queryKey: trpc.job.list.queryKey() });
  };
  const fail = (e: unknown) => notice.fail({ message: errorText(e) });
  const hold = useMutation(trpc.job.holdArray.mutationOptions({ onSuccess: (r) => done(arrayHeldText(r)), onError: fail }));
  const release = useMutation(
    trpc.job.releaseArray.mutationOptions({ onSuccess: (r) => done(arrayReleasedText(r)), onError: fail }),
  );
  const cancel = useMutation(
    trpc.job.cancelArray.mutationOptions({
      onSuccess: (r) =>
        done(
          `Cancelled ${plural(r.cancelled, "waiting task")}${r.stopping > 0 ? `; ${plural(r.stopping, "running task")} asked to stop` : ""}.`,
        ),
      onError: fail,
    }),
  );

  if (view.isPending) return <div className="panel-body muted">Loading array #{id}…</div>;
  if (view.isError) return <div className="alert bad">{errorText(view.error)}</div>;
  const a = view.data;
  const { pending, running, active } = arrayCounts(a.states);
  const busy = hold.isPending || release.isPending || cancel.isPending;
  return (
    <section className="panel" style={{ marginBottom: "1rem" }} aria-label={`Array #${id}`}>
      <div className="panel-body">
        <Notice notice={notice.notice} />
        <p>
          <strong>{a.name}</strong> · {plural(a.tasks, "task")} ({a.spec}) on{" "}
          <Link href={`/queue/${a.cluster}`}>{a.cluster}</Link> · by {a.owner.name}
        </p>
        <div
          className="seg"
          role="group"
          aria-label="Tasks by state"
          data-testid="array-states"
          style={{ marginBottom: "0.8rem" }}
        >
          <button type="button" aria-pressed={state === null} onClick={() => onState(null)}>
            All {plural(a.tasks, "task")}
          </button>
          {arrayStateParts(a.states, state).map((p) => (
            <button key={p.state} type="button" aria-pressed={state === p.state} onClick={() => onState(p.state)}>
              {p.text}
            </button>
          ))}
        </div>
        <div className="row">
          {a.mayHold && pending > 0 ? (
            <button
              className="btn"
              disabled={busy}
              onClick={() => {
                if (confirm(holdArrayQuestion(id, pending, running))) hold.mutate({ id });
              }}
            >
              Hold all pending tasks
            </button>
          ) : null}
          {a.releasable > 0 ? (
            <button
              className="btn"
              disabled={busy}
              onClick={() => {
                if (confirm(releaseArrayQuestion(id, a.releasable))) release.mutate({ id });
              }}
            >
              Release all held tasks
            </button>
          ) : null}
          {a.mayCancel && active > 0 ? (
            <button
              className="btn danger"
              disabled={busy}
              onClick={() => {
                if (confirm(`Cancel every task of array #${id} that has not ended?`)) cancel.mutate({ id });
              }}
            >
              Cancel the whole array
            </button>
          ) : null}
        </div>
      </div>
    </section>
  );
}

/** Under an array's list: that it shows only part of the tasks chosen (an array has up to 10,000; a list 1,000). */
export function ArrayListCut({
  shown,
  of,
  state,
}: {
  shown: number;
  of: { tasks: number; states: Partial<Record<JobState, number>> };
  state: JobState | null;
}) {
  const text = arrayListCutText(shown, state ? (of.states[state] ?? 0) : of.tasks);
  return text ? <div className="panel-body muted small">{text}</div> : null;
}
