"use client";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../lib/trpc";
import { Empty, useNow } from "./ui";
import { errorText } from "../lib/error-text";
import { JobRowsTable } from "../app/(app)/jobs/job-rows-table";

/**
 * The dashboard's active jobs: the same rows as My jobs (job.rows), so a job array is one row saying where
 * its tasks stand, not twenty of the panel's rows.
 */
export function MyActiveJobs() {
  const trpc = useTRPC();
  const now = useNow(5000);
  const jobs = useQuery({ ...trpc.job.rows.queryOptions({ scope: "mine", active: true, limit: 20 }), refetchInterval: 2000 });
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
      ) : jobs.data.jobs.length + jobs.data.arrays.length === 0 ? (
        <Empty title="Nothing pending or running">
          <Link href="/submit">Submit a job</Link> to get GPU time from one of your budgets.
        </Empty>
      ) : (
        <JobRowsTable rows={jobs.data} showUser={false} now={now} />
      )}
    </section>
  );
}
