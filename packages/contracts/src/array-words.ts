// A job array in words, for its page, the web's job lists and `tranche ls`: where its tasks stand
// ("48 pending, 20 running, 5 failed") and the one row that stands for it in a list.
import { JOB_STATES, type JobState } from "./job-states";

/**
 * Where an array's tasks stand, in the order a job goes through its states ("17 pending", "3 running",
 * "5 failed"): its page's filter, one button per state. A state no task is in is left out, unless it is
 * the one chosen (its tasks may all have moved on: "0 held").
 */
export function arrayStateParts(
  states: Partial<Record<JobState, number>>,
  chosen: JobState | null = null,
): { state: JobState; text: string }[] {
  return JOB_STATES.filter((s) => (states[s] ?? 0) > 0 || s === chosen).map((s) => ({
    state: s,
    text: `${(states[s] ?? 0).toLocaleString("en-US")} ${s.toLowerCase()}`,
  }));
}

/** An array's row in a job list: "array of 100: 48 pending, 20 running, 27 completed, 5 failed". */
export function arrayRowText(a: { tasks: number; states: Partial<Record<JobState, number>> }): string {
  const parts = arrayStateParts(a.states).map((p) => p.text);
  return `array of ${a.tasks.toLocaleString("en-US")}${parts.length ? `: ${parts.join(", ")}` : ""}`;
}

/**
 * A list's single jobs and arrays as one list, newest first: an array sorts by its id (its first task's),
 * as it was submitted among the jobs.
 */
export function jobListRows<J extends { id: number }, A extends { id: number }>(rows: {
  jobs: J[];
  arrays: A[];
}): ({ id: number; job: J; array?: undefined } | { id: number; array: A; job?: undefined })[] {
  return [...rows.jobs.map((job) => ({ id: job.id, job })), ...rows.arrays.map((array) => ({ id: array.id, array }))].sort(
    (a, b) => b.id - a.id,
  );
}
