import type { JobRowsView } from "@tranche/contracts";
import { jobListRows } from "@tranche/contracts/format";
import { ArrayRow } from "./array-row";
import { JobRow } from "./job-row";

/**
 * A list of jobs with each job array as one row (job.rows), for My jobs, All jobs and the dashboard's
 * active jobs: one table, so an array reads "array of 100: 48 pending, 20 running…" wherever it is listed.
 */
export function JobRowsTable({ rows, showUser, now }: { rows: JobRowsView; showUser: boolean; now: number }) {
  return <JobsTableRows rows={jobListRows(rows)} showUser={showUser} now={now} />;
}

type Row = ReturnType<typeof jobListRows<JobRowsView["jobs"][number], JobRowsView["arrays"][number]>>[number];

/** The table itself, for rows already in order (an array's page lists its tasks by index). */
export function JobsTableRows({ rows, showUser, now }: { rows: Row[]; showUser: boolean; now: number }) {
  return (
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
        {rows.map((r) =>
          r.array ? (
            <ArrayRow key={`array-${r.array.id}`} array={r.array} showUser={showUser} now={now} />
          ) : (
            <JobRow key={r.job.id} job={r.job} showUser={showUser} now={now} />
          ),
        )}
      </tbody>
    </table>
  );
}
