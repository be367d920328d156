"use client";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { formatDuration, formatExactDuration } from "@tranche/contracts/format";
import { useTRPC } from "../../../lib/trpc";
import { Empty, LaneBadge, PageHead, ReasonTag, StateBadge, ago, readable, useNow } from "../../../components/ui";
import { errorText } from "../../../lib/error-text";
import { JobEnded } from "./job-ended";
import { JobNameCell } from "./job-name-cell";

type Filter = "active" | "finished" | "all";

export function JobsTable() {
  const trpc = useTRPC();
  const now = useNow(5000);
  const [filter, setFilter] = useState<Filter>("active");
  const me = useQuery(trpc.me.get.queryOptions());
  const [scope, setScope] = useState<"mine" | "all">("mine");
  const jobs = useQuery({
    ...trpc.job.list.queryOptions({ scope, active: filter === "all" ? undefined : filter === "active", limit: 200 }),
    refetchInterval: 2000,
  });
  return (
    <>
      <PageHead
        title={scope === "mine" ? "My jobs" : "All jobs"}
        lede="Pending jobs show the scheduler's latest reason; running ones show their protection."
      >
        {me.data && me.data.role !== "RESEARCHER" ? (
          <div className="seg" role="group" aria-label="Whose jobs">
            <button type="button" aria-pressed={scope === "mine"} onClick={() => setScope("mine")}>
              Mine
            </button>
            <button type="button" aria-pressed={scope === "all"} onClick={() => setScope("all")}>
              Everyone&apos;s
            </button>
          </div>
        ) : null}
        <div className="seg" role="group" aria-label="Filter">
          {(["active", "finished", "all"] as const).map((f) => (
            <button key={f} type="button" aria-pressed={filter === f} onClick={() => setFilter(f)}>
              {f[0]!.toUpperCase() + f.slice(1)}
            </button>
          ))}
        </div>
        <Link className="btn" href="/sessions/new">
          Start a session
        </Link>
        <Link className="btn primary" href="/submit">
          Submit a job
        </Link>
      </PageHead>
      <section className="panel">
        {jobs.isPending ? (
          <div className="panel-body muted">Loading…</div>
        ) : jobs.isError ? (
          <div className="panel-body error">{errorText(jobs.error)}</div>
        ) : jobs.data.length === 0 ? (
          <Empty title={filter === "active" ? "No pending or running jobs" : "No jobs here yet"}>
            <Link href="/submit">Submit a job</Link>, from the web or with <code>tranche submit</code>.
          </Empty>
        ) : (
          <table className="table" aria-label="Jobs">
            <thead>
              <tr>
                <th>Job</th>
                <th>State</th>
                <th>Budget</th>
                <th className="num">GPUs</th>
                <th>Contract</th>
                <th>Status</th>
              </tr>
            </thead>
            <tbody>
              {jobs.data.map((j) => (
                <tr key={j.id} data-testid={`job-row-${j.id}`}>
                  <JobNameCell job={j} showUser={scope === "all"} />
                  <td>
                    <StateBadge state={j.state} />
                  </td>
                  <td className="small">
                    <div>{j.budget}</div>
                    <div className="muted">on {j.cluster}</div>
                  </td>
                  <td className="num">{j.gpus}</td>
                  <td className="small">
                    <LaneBadge lane={j.lane} />
                    <div className="muted nowrap">
                      {j.minRuntime > 0 ? `protected ${formatExactDuration(j.minRuntime)}` : "interruptible"}
                      {j.resumable ? " · resumable" : ""}
                    </div>
                  </td>
                  <td className="small" style={{ minWidth: 260, maxWidth: 560 }}>
                    {j.state === "PENDING" || j.state === "HELD" ? (
                      <span className="sentence-cell sentence-clamp" title={j.reason?.sentence}>
                        {j.reason ? <ReasonTag code={j.reason.code} details={j.reason.details} /> : null}{" "}
                        {j.reason ? readable(j.reason.sentence) : "Waiting for the scheduler's next cycle."}
                      </span>
                    ) : j.state === "RUNNING" || j.state === "STOPPING" ? (
                      <span>
                        Started {ago(j.startedAt, now)}
                        {j.protectedUntil && Date.parse(j.protectedUntil) > now
                          ? ` · protected ${formatDuration(Math.round((Date.parse(j.protectedUntil) - now) / 1000))} more`
                          : j.minRuntime > 0
                            ? " · interruptible"
                            : ""}
                      </span>
                    ) : (
                      <JobEnded job={j} now={now} />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
