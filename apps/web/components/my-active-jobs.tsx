"use client";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../lib/trpc";
import { Empty, LaneBadge, StateBadge, ago, readable, useNow } from "./ui";
import { errorText } from "../lib/error-text";

export function MyActiveJobs() {
  const trpc = useTRPC();
  const now = useNow(5000);
  const jobs = useQuery({ ...trpc.job.list.queryOptions({ scope: "mine", active: true, limit: 20 }), refetchInterval: 2000 });
  return (
    <section className="panel">
      <div className="panel-head">
        <h2>Your active jobs</h2>
        <span className="spacer" />
        <Link href="/jobs" className="small">
          All my jobs →
        </Link>
      </div>
      {jobs.isPending ? (
        <div className="panel-body muted">Loading…</div>
      ) : jobs.isError ? (
        <div className="panel-body error">{errorText(jobs.error)}</div>
      ) : jobs.data.length === 0 ? (
        <Empty title="Nothing pending or running">
          <Link href="/submit">Submit a job</Link> to get GPU time from one of your budgets.
        </Empty>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>Job</th>
              <th>State</th>
              <th>Cluster · budget</th>
              <th className="num">GPUs</th>
              <th>Why / since</th>
            </tr>
          </thead>
          <tbody>
            {jobs.data.map((j) => (
              <tr key={j.id}>
                <td>
                  <Link href={`/jobs/${j.id}`}>
                    #{j.id} {j.name}
                  </Link>{" "}
                  <LaneBadge lane={j.lane} />
                </td>
                <td>
                  <StateBadge state={j.state} />
                </td>
                <td className="small">
                  {j.cluster} · {j.budget}
                </td>
                <td className="num">{j.gpus}</td>
                <td className="small">
                  {j.state === "PENDING" || j.state === "HELD"
                    ? readable(j.reason?.sentence ?? "") ||
                      `Submitted ${ago(j.submittedAt, now)}; waiting for the scheduler's next cycle.`
                    : `Started ${ago(j.startedAt, now)}`}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
