/**
 * SPEC §4 utilization: an allocated job whose GPUs the agents report under 5% busy for 30 minutes
 * is likely squatting. The agent protocol applies this rule on every report of a charged run and
 * stores the start of the idle streak; views flag the job once the streak reaches the window.
 */

/** Below this mean busy % a report counts as idle. */
export const SQUATTING_BUSY_PERCENT = 5;
/** An idle streak this long (seconds) flags the job. */
export const SQUATTING_WINDOW = 1800;

/**
 * The start of the job's idle streak after one report of its GPUs' busy percentages: kept while the
 * mean stays under the threshold, started now when it falls under, cleared by a busy report. A report
 * without a reading of any of its GPUs changes nothing.
 */
export function squattingSince(previous: number | null, busyPercents: readonly number[], now: number): number | null {
  if (busyPercents.length === 0) return previous;
  const mean = busyPercents.reduce((a, b) => a + b, 0) / busyPercents.length;
  if (mean >= SQUATTING_BUSY_PERCENT) return null;
  return previous ?? now;
}

/** Whether an idle streak that began at `since` flags the job as likely squatting at `now`. */
export function isSquatting(since: number | null, now: number): boolean {
  return since !== null && now - since >= SQUATTING_WINDOW;
}
