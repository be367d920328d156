import type { JobRowsView } from "@tranche/contracts";
import { jobListRows } from "@tranche/contracts/format";
import { ArrayRow } from "./array-row";
import { JobRow } from "./job-row";
import { SELECTABLE } from "./bulk-actions";

/** Ticking jobs to act on them together (My jobs): the ids ticked, and a way to tick or untick some. */
export interface Selection {
  chosen: ReadonlySet<number>;
  toggle: (ids: number[], on: boolean) => void;
}

/**
 * A list of jobs with each job array as one row (job.rows), for My jobs, All jobs and the dashboard's
 * active jobs: one table, so an array reads "array of 100: 48 pending, 20 running…" wherever it is listed.
 */
export function JobRowsTable({ rows, showUser, now }: { rows: JobRowsView; showUser: boolean; now: number }) {
  return <JobsTableRows rows={jobListRows(rows)} showUser={showUser} now={now} />;
}

type Row = ReturnType<typeof jobListRows<JobRowsView["jobs"][number], JobRowsView["arrays"][number]>>[number];

/** The table itself, for rows already in order (an array's page lists its tasks by index). */
export function JobsTableRows({
  rows,
  showUser,
  now,
  selection,
}: {
  rows: Row[];
  showUser: boolean;
  now: number;
  selection?: Selection;
}) {
  const selectable = rows.flatMap((r) => (r.job && SELECTABLE.includes(r.job.state) ? [r.job.id] : []));
  const all = selectable.length > 0 && selectable.every((id) => selection?.chosen.has(id));
  return (
    <table className="table" aria-label="Jobs">
      <thead>
        <tr>
          {selection ? (
            <th>
              <input
                type="checkbox"
                aria-label="Select every job listed that can still be changed"
                checked={all}
                disabled={selectable.length === 0}
                onChange={(e) => selection.toggle(selectable, e.target.checked)}
              />
            </th>
          ) : null}
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
            <ArrayRow key={`array-${r.array.id}`} array={r.array} showUser={showUser} now={now} selecting={!!selection} />
          ) : (
            <JobRow
              key={r.job.id}
              job={r.job}
              showUser={showUser}
              now={now}
              select={
                selection
                  ? {
                      can: SELECTABLE.includes(r.job.state),
                      on: selection.chosen.has(r.job.id),
                      set: (on) => selection.toggle([r.job!.id], on),
                    }
                  : undefined
              }
            />
          ),
        )}
      </tbody>
    </table>
  );
}
