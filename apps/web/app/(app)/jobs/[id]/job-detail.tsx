"use client";
import Link from "next/link";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSearchParams } from "next/navigation";
import { useState } from "react";
import { explainContract, formatDuration, formatExactDuration } from "@tranche/contracts";
import { arrayTaskText, expectedStartWords, lastCheckpointWords, nodeListWords } from "@tranche/contracts/format";
import { defaultPolicy } from "@tranche/scheduler-core";
import { lineText } from "@tranche/scheduler-core/format";
import { useTRPC } from "../../../../lib/trpc";
import { JobLogs } from "./job-logs";
import { SessionPanel } from "./session-panel";
import { EditJob } from "./edit-job";
import { JobEnv } from "./job-env";
import { LaneBadge, ReasonTag, ReasonTimes, StateBadge, ago, readable, until, useNow, when } from "../../../../components/ui";
import { errorText } from "../../../../lib/error-text";
import { cancelJobQuestion } from "../../../../lib/confirm-words";
import { gracePeriodText, labelAddsToTitle, minRuntimeText, placementText, plural, runEndText } from "../../../../lib/words";
import { reasonLabel } from "@tranche/contracts/reasons";
import { isJobEventKind, jobEventTitle, type JobEventKind } from "@tranche/contracts/events";
import { jobPageUnder } from "../../../../lib/nav";
import { useNavHighlight } from "../../../../components/nav-highlight";

/** The timeline's dot per event kind: starts green, stops amber, failures red. */
const DOT: Record<JobEventKind, string> = {
  SUBMITTED: "",
  DEPENDENCIES_SET: "",
  UPDATED: "",
  HELD: "muted",
  RELEASED: "",
  STARTED: "ok",
  EXTENDED: "ok",
  MOVED: "",
  PREEMPTED: "warn",
  MAX_RUNTIME: "warn",
  CANCEL_REQUESTED: "warn",
  REQUEUED: "",
  RETRIED: "",
  PREEMPTED_ENDED: "warn",
  FINISHED: "ok",
  FAILED: "bad",
  KILLED: "bad",
  LOST: "bad",
  CANCELLED: "muted",
};

export function JobDetailView({ id }: { id: number }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const now = useNow(1000);
  const submitted = useSearchParams().get("submitted") === "1";
  const detail = useQuery({ ...trpc.job.detail.queryOptions({ id }), refetchInterval: 2000 });
  const me = useQuery(trpc.me.get.queryOptions());
  const [msg, setMsg] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const [changed, setChanged] = useState<string | null>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.job.detail.queryKey({ id }) });
  const opts = {
    onSuccess: () => {
      setMsg(null);
      void refresh();
    },
    onError: (e: unknown) => setMsg(errorText(e)),
  };
  const cancel = useMutation(trpc.job.cancel.mutationOptions(opts));
  const cancelArray = useMutation(trpc.job.cancelArray.mutationOptions(opts));
  const hold = useMutation(trpc.job.hold.mutationOptions(opts));
  const release = useMutation(trpc.job.release.mutationOptions(opts));
  const under = jobPageUnder(me.data?.id, detail.data?.job.user.id);
  useNavHighlight(under);

  if (detail.isPending) return <p className="muted">Loading job {id}…</p>;
  if (detail.isError) return <div className="alert bad">{errorText(detail.error)}</div>;
  const { job, events, segments } = detail.data;
  const words = explainContract({ ...job, requeue: job.requeue });
  const protectedLeft = job.protectedUntil ? Date.parse(job.protectedUntil) - now : 0;
  const pending = job.state === "PENDING" || job.state === "HELD";
  const running = job.state === "RUNNING" || job.state === "STOPPING";
  const checkpoint = lastCheckpointWords(job, now);

  return (
    <>
      <div className="page-head">
        <div>
          <div className="small muted" style={{ marginBottom: "0.3rem" }}>
            {/* Someone else's job is reached from its queue, not from "My jobs". */}
            {under === "/jobs" ? (
              <Link href="/jobs">My jobs</Link>
            ) : (
              <Link href={`/queue/${job.cluster}`}>{job.cluster} queue</Link>
            )}{" "}
            / #{job.id}
          </div>
          <h1 className="row" style={{ gap: "0.6rem" }}>
            <span>{job.name}</span> <StateBadge state={job.state} /> <LaneBadge lane={job.lane} />
          </h1>
          <p className="lede">
            #{job.id} · {plural(job.gpus, "GPU")} on <Link href={`/queue/${job.cluster}`}>{job.cluster}</Link> · charged to{" "}
            {job.budget} · by {job.user.name} · submitted {ago(job.submittedAt, now)}
            {job.array ? (
              <>
                {" "}
                · <span data-testid="array-task">{arrayTaskText(job.array)}</span> (
                <Link href={`/arrays/${job.array.id}`}>array #{job.array.id}</Link>)
              </>
            ) : null}
          </p>
        </div>
        <div className="row">
          {/* Who may hold a job may change it while it waits (update-job.ts). */}
          {detail.data.canHold && pending && !editing ? (
            <button
              className="btn"
              onClick={() => {
                setChanged(null);
                setEditing(true);
              }}
            >
              Edit
            </button>
          ) : null}
          {detail.data.canHold && job.state === "PENDING" ? (
            <button className="btn" onClick={() => hold.mutate({ id })} disabled={hold.isPending}>
              Hold
            </button>
          ) : null}
          {detail.data.canHold && job.state === "HELD" ? (
            <button className="btn" onClick={() => release.mutate({ id })} disabled={release.isPending}>
              Release
            </button>
          ) : null}
          {detail.data.canCancel ? (
            <button
              className="btn danger"
              onClick={() => {
                if (confirm(cancelJobQuestion(id, job.state === "RUNNING"))) cancel.mutate({ id });
              }}
              disabled={cancel.isPending}
            >
              Cancel job
            </button>
          ) : null}
          {detail.data.canCancel && job.array ? (
            <button
              className="btn danger"
              onClick={() => {
                if (confirm(`Cancel every task of array #${job.array!.id} that has not ended?`))
                  cancelArray.mutate({ id: job.array!.id });
              }}
              disabled={cancelArray.isPending}
            >
              Cancel the whole array
            </button>
          ) : null}
        </div>
      </div>
      {submitted && pending ? (
        <div className="alert ok" style={{ marginBottom: "1rem" }}>
          Job #{job.id} submitted. It is in the <Link href={`/queue/${job.cluster}`}>{job.cluster} queue</Link>; the reason below
          updates after every scheduling cycle.
        </div>
      ) : null}
      {running && job.squattingSince ? (
        <div className="alert warn" style={{ marginBottom: "1rem" }} data-testid="squatting-notice">
          Likely squatting: this job&apos;s GPUs have been under 5% busy for at least 30 minutes (flagged{" "}
          {ago(job.squattingSince, now)}). If it is waiting for something, consider freeing the GPUs; a cluster may end the
          protection of jobs that stay flagged.
        </div>
      ) : null}
      {msg ? (
        <div className="alert bad" role="alert" style={{ marginBottom: "1rem" }}>
          {msg}
        </div>
      ) : null}
      {changed ? (
        <div className="alert ok" role="status" style={{ marginBottom: "1rem" }}>
          {changed}
        </div>
      ) : null}
      {editing && pending ? (
        <div style={{ marginBottom: "1rem" }}>
          <EditJob
            job={job}
            mine={me.data?.id === job.user.id}
            onDone={(message) => {
              setEditing(false);
              setChanged(message);
              void refresh();
            }}
          />
        </div>
      ) : null}

      <div className="grid-2">
        <div className="stack">
          {pending ? (
            <section className="panel">
              <div className="panel-body">
                <div className="reason-box" data-testid="job-reason">
                  <div className="row" style={{ gap: "0.5rem" }}>
                    <strong>Why it is waiting</strong>
                    {job.reason ? <ReasonTag code={job.reason.code} details={job.reason.details} /> : null}
                    {job.reason ? <ReasonTimes code={job.reason.code} details={job.reason.details} now={now} /> : null}
                    {job.reason?.position ? <span className="small muted">{lineText(job.reason.position)}</span> : null}
                  </div>
                  <p title={job.reason?.sentence}>
                    {(job.reason && readable(job.reason.sentence)) ??
                      "Waiting for the scheduler's next cycle: it explains every pending job with a reason and numbers."}
                  </p>
                  {/* The core's forecast with the jobs ahead: an upper bound on the wait if nothing new arrives. */}
                  <p
                    data-testid="job-forecast"
                    suppressHydrationWarning
                    title="If no new jobs arrive and running jobs run to their max runtime"
                  >
                    {sentenceCase(expectedStartWords(job, now))}
                    {job.estimatedStartAt ? ` (${when(job.estimatedStartAt)})` : ""}.
                  </p>
                </div>
              </div>
            </section>
          ) : null}
          {job.session && me.data?.id === job.user.id ? (
            <SessionPanel job={job} now={now} onChange={() => void refresh()} />
          ) : null}
          {running ? (
            <section className="panel">
              <div className="panel-body row" style={{ gap: "2rem" }}>
                <div>
                  <div className="tile-label">Running for</div>
                  <div className="tile-value">
                    {job.startedAt ? formatDuration(Math.round((now - Date.parse(job.startedAt)) / 1000)) : "—"}
                  </div>
                </div>
                <div>
                  <div className="tile-label">{protectedLeft > 0 ? "Protected for" : "Protection"}</div>
                  <div className="tile-value">
                    {protectedLeft > 0 ? until(job.protectedUntil, now) : job.minRuntime > 0 ? "ended" : "none"}
                  </div>
                  <div className="tile-sub">
                    {protectedLeft > 0 ? `then interruptible (${when(job.protectedUntil)})` : "interruptible"}
                  </div>
                </div>
                {job.state === "STOPPING" ? (
                  <div>
                    <div className="tile-label">Stopped by force in</div>
                    <div className="tile-value">{until(job.graceUntil, now)}</div>
                  </div>
                ) : null}
              </div>
            </section>
          ) : null}

          <section className="panel">
            <div className="panel-head">
              <h2>Timeline</h2>
              <span className="muted">{plural(events.length, "event")}</span>
            </div>
            <div className="panel-body">
              {events.length === 0 ? (
                <p className="muted">No events yet.</p>
              ) : (
                <ol className="timeline" aria-label="Job events">
                  {events.map((e) => (
                    <li key={e.id}>
                      <span className={`dot ${isJobEventKind(e.kind) ? DOT[e.kind] : ""}`} />
                      <div className="row" style={{ gap: "0.5rem" }}>
                        <span className="what">{jobEventTitle(e.kind)}</span>
                        {e.reasonCode && labelAddsToTitle(jobEventTitle(e.kind), reasonLabel(e.reasonCode, { kind: e.kind })) ? (
                          <ReasonTag code={e.reasonCode} kind={e.kind} />
                        ) : null}
                        <span className="when">
                          {when(e.at)}
                          {e.actorName ? ` · ${e.actorName}` : e.actorKind !== "USER" ? ` · ${e.actorKind.toLowerCase()}` : ""}
                        </span>
                      </div>
                      <div className="sentence" title={e.sentence}>
                        {readable(e.sentence)}
                      </div>
                    </li>
                  ))}
                </ol>
              )}
            </div>
          </section>

          <section className="panel">
            <div className="panel-head">
              <h2>Logs</h2>
            </div>
            {!detail.data.detailsVisible ? (
              <div className="panel-body muted">
                Logs are visible to the job&apos;s owner, the managers of its budget, operators and admins.
              </div>
            ) : (
              <JobLogs id={id} running={running} />
            )}
          </section>
        </div>

        <aside className="stack">
          <section className="contract">
            <h3>
              Contract <LaneBadge lane={words.lane} />
            </h3>
            <p>
              <strong>{words.headline}</strong>
            </p>
            <ul>
              {words.sentences.map((s) => (
                <li key={s}>{s}</li>
              ))}
            </ul>
          </section>
          <section className="panel">
            <div className="panel-body">
              <dl className="kv">
                <dt>Minimum runtime</dt>
                <dd>{minRuntimeText(job.minRuntime, formatExactDuration)}</dd>
                <dt>Maximum runtime</dt>
                <dd>{job.maxRuntime ? formatExactDuration(job.maxRuntime) : "none"}</dd>
                <dt>Resumable</dt>
                <dd>{job.resumable ? "yes" : job.requeue ? "no, but requeue if preempted" : "no"}</dd>
                <dt>Priority</dt>
                <dd>
                  {job.priority} (within {job.budget})
                </dd>
                <dt>Grace period</dt>
                <dd>{gracePeriodText(job, defaultPolicy, formatExactDuration)}</dd>
                <dt>Requeued</dt>
                <dd>{plural(job.requeueCount, "time")}</dd>
                {checkpoint ? (
                  <>
                    <dt>Last checkpoint</dt>
                    <dd>
                      {checkpoint}
                      {job.lastCheckpointAt ? ` (${when(job.lastCheckpointAt)})` : ""}
                    </dd>
                  </>
                ) : null}
                <dt>Retries on failure</dt>
                <dd>{job.retries.max === 0 ? "none" : `${job.retries.used} of ${job.retries.max} used`}</dd>
                {job.after.length > 0 ? (
                  <>
                    <dt>Starts after</dt>
                    <dd>
                      {job.after.map((a, i) => (
                        <span key={a.jobId}>
                          {i > 0 ? ", " : ""}
                          <Link href={`/jobs/${a.jobId}`}>#{a.jobId}</Link> {a.condition === "OK" ? "succeeds" : "ends"}
                        </span>
                      ))}
                    </dd>
                  </>
                ) : null}
                {nodeListWords(job.nodes, job.excludeNodes) !== null ? (
                  <>
                    <dt>Nodes</dt>
                    <dd data-testid="node-lists">{nodeListWords(job.nodes, job.excludeNodes)}</dd>
                  </>
                ) : null}
                <dt>Command</dt>
                <dd>
                  {/* A script keeps its lines. */}
                  <pre className="command">{job.command}</pre>
                </dd>
                <JobEnv env={job.env} secretEnvNames={job.secretEnvNames} />
              </dl>
            </div>
          </section>
          <section className="panel">
            <div className="panel-head">
              <h2>Runs</h2>
              <span className="muted">{segments.length}</span>
            </div>
            {segments.length === 0 ? (
              <div className="panel-body muted small">Not started yet.</div>
            ) : (
              <table className="table">
                <thead>
                  <tr>
                    <th>Started</th>
                    <th>Nodes · GPUs</th>
                    <th>Ended</th>
                  </tr>
                </thead>
                <tbody>
                  {segments.map((s) => (
                    <tr key={s.id}>
                      <td className="small">
                        {when(s.startedAt)}
                        <div className="faint">{s.charged ? "allocated" : "unallocated"}</div>
                      </td>
                      <td className="small">
                        {s.placements.map((p) => (
                          <div key={p.node}>
                            <span className="mono">{p.node}</span> · {placementText(p.gpuIndexes, p.nodeGpus)}
                          </div>
                        ))}
                      </td>
                      <td className="small">{s.endedAt ? `${when(s.endedAt)} · ${runEndText(s.endReason)}` : "running"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        </aside>
      </div>
    </>
  );
}

const sentenceCase = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
