"use client";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { JobState } from "@tranche/contracts";
import { jobListRows } from "@tranche/contracts/format";
import { useTRPC } from "../../../lib/trpc";
import { Empty, PageHead, useNow } from "../../../components/ui";
import { errorText } from "../../../lib/error-text";
import { JobsTableRows, type Selection } from "./job-rows-table";
import { BulkActions, SELECTABLE } from "./bulk-actions";
import { ArrayListCut, ArrayPanel } from "../arrays/[id]/array-panel";
import { jobPageUnder } from "../../../lib/nav";
import { useNavHighlight } from "../../../components/nav-highlight";

type Filter = "active" | "finished" | "all";

/**
 * My jobs, or with `array` one job array's page: its tasks (all of them at first, up to 1,000, by index),
 * under the panel that holds, releases or cancels them all.
 */
export function JobsTable({ array }: { array?: number } = {}) {
  const trpc = useTRPC();
  const now = useNow(5000);
  const [filter, setFilter] = useState<Filter>("active");
  // An array's page filters by state from its counts ("5 failed"); null: all its tasks.
  const [state, setState] = useState<JobState | null>(null);
  const me = useQuery(trpc.me.get.queryOptions());
  const [chosenScope, setScope] = useState<"mine" | "all">("mine");
  // Whoever may list everyone's jobs sees every task of an array, whoever submitted it.
  const scope = array && me.data && me.data.role !== "RESEARCHER" ? "all" : chosenScope;
  // An array's page lists its tasks by index; My jobs and All jobs list an array as one row (job.rows), so
  // a 100-task array takes one of the 200 rows and the single jobs stay in view.
  const tasks = useQuery({
    ...trpc.job.list.queryOptions({ scope, limit: 1000, array: array ?? 0, ...(state ? { state } : {}) }),
    enabled: array !== undefined,
    refetchInterval: 2000,
  });
  const listed = useQuery({
    ...trpc.job.rows.queryOptions({ scope, limit: 200, active: filter === "all" ? undefined : filter === "active" }),
    enabled: array === undefined,
    refetchInterval: 2000,
  });
  const jobs = array ? tasks : listed;
  const rows = array
    ? [...(tasks.data ?? [])]
        .sort((a, b) => (a.array?.index ?? 0) - (b.array?.index ?? 0))
        .map((job) => ({ id: job.id, job, array: undefined }))
    : listed.data && jobListRows(listed.data);
  // An array's page sits where its tasks' pages do: under My jobs for its owner, else the live queue.
  const arrayView = useQuery({ ...trpc.job.array.queryOptions({ id: array ?? 0 }), enabled: array !== undefined });
  useNavHighlight(array ? jobPageUnder(me.data?.id, arrayView.data?.owner.id) : null);
  // My jobs' ticked jobs; an array's page acts on all its tasks from its panel instead.
  const [chosen, setChosen] = useState<ReadonlySet<number>>(new Set());
  const selection: Selection | undefined = array
    ? undefined
    : {
        chosen,
        toggle: (ids, on) =>
          setChosen((was) => {
            const next = new Set(was);
            for (const id of ids)
              if (on) next.add(id);
              else next.delete(id);
            return next;
          }),
      };
  // Only the ticked jobs still listed and changeable: one that ended or left the list is not acted on unseen.
  const ticked = (rows ?? []).flatMap((r) =>
    r.job && chosen.has(r.job.id) && SELECTABLE.includes(r.job.state) ? [r.job.id] : [],
  );
  return (
    <>
      <PageHead
        title={array ? `Array #${array}` : scope === "mine" ? "My jobs" : "All jobs"}
        lede="Pending jobs show the scheduler's latest reason; running ones show their protection."
      >
        {!array && me.data && me.data.role !== "RESEARCHER" ? (
          <div className="seg" role="group" aria-label="Whose jobs">
            <button type="button" aria-pressed={scope === "mine"} onClick={() => setScope("mine")}>
              Mine
            </button>
            <button type="button" aria-pressed={scope === "all"} onClick={() => setScope("all")}>
              Everyone&apos;s
            </button>
          </div>
        ) : null}
        {array ? null : (
          <div className="seg" role="group" aria-label="Filter">
            {(["active", "finished", "all"] as const).map((f) => (
              <button key={f} type="button" aria-pressed={filter === f} onClick={() => setFilter(f)}>
                {f[0]!.toUpperCase() + f.slice(1)}
              </button>
            ))}
          </div>
        )}
        <Link className="btn" href="/sessions/new">
          Start a session
        </Link>
        <Link className="btn primary" href="/submit">
          Submit a job
        </Link>
      </PageHead>
      {array ? <ArrayPanel id={array} state={state} onState={setState} /> : null}
      <section className="panel">
        {selection && rows && rows.length > 0 ? <BulkActions ids={ticked} onDone={() => setChosen(new Set())} /> : null}
        {jobs.isPending ? (
          <div className="panel-body muted">Loading…</div>
        ) : jobs.isError ? (
          <div className="panel-body error">{errorText(jobs.error)}</div>
        ) : !rows || rows.length === 0 ? (
          <Empty
            title={
              array && state
                ? `None of its tasks is ${state.toLowerCase()} now`
                : filter === "active" && !array
                  ? "No pending or running jobs"
                  : "No jobs here yet"
            }
          >
            <Link href="/submit">Submit a job</Link>, from the web or with <code>tranche submit</code>.
          </Empty>
        ) : (
          <JobsTableRows rows={rows} showUser={scope === "all"} now={now} selection={selection} />
        )}
        {array && arrayView.data && rows?.length ? <ArrayListCut shown={rows.length} of={arrayView.data} state={state} /> : null}
      </section>
    </>
  );
}
