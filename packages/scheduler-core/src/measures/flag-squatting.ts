/**
 * SPEC §4 utilization: an allocated job whose GPUs the agents report under 5% busy for 30 minutes
 * is likely squatting. The agent protocol applies this rule on every report of a charged run and
 * stores both the start of the idle streak and the moment the streak reached the window (the flag),
 * so a restart of the control plane loses neither.
 */

/** Below this mean busy % a report counts as idle. */
export const SQUATTING_BUSY_PERCENT = 5;
/** An idle streak this long (seconds) flags the job. */
export const SQUATTING_WINDOW = 1800;

/** A running job's idle streak: when it began, and when it reached the window (null: not yet). */
export interface SquattingState {
  idleSince: number | null;
  flaggedAt: number | null;
}

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

/**
 * One report applied to a job's idle streak: the flag is raised by the first report that finds the
 * streak at least SQUATTING_WINDOW long (never by a single idle reading), kept while the job stays
 * idle, and lowered with the streak by a busy report.
 */
export function squattingAfterReport(previous: SquattingState, busyPercents: readonly number[], now: number): SquattingState {
  const idleSince = squattingSince(previous.idleSince, busyPercents, now);
  if (idleSince === null) return { idleSince: null, flaggedAt: null };
  const flaggedAt = previous.flaggedAt ?? (isSquatting(idleSince, now) ? now : null);
  return { idleSince, flaggedAt };
}
