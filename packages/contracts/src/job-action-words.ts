import type { JobAction, JobActionResult } from "./job-actions";

// What a bulk action did, in words: the CLI's `tranche cancel 41 42 43` and the My jobs page say the same.

const jobs = (n: number) => `${n} job${n === 1 ? "" : "s"}`;

const DONE: Record<JobAction, { done: string; after: (one: boolean) => string }> = {
  cancel: { done: "cancelled", after: () => "a running one stops within its grace period" },
  hold: {
    done: "held",
    after: (one) => (one ? "the scheduler skips it until it is released" : "the scheduler skips them until they are released"),
  },
  release: {
    done: "released",
    after: (one) => `back in the queue, in ${one ? "its" : "their"} place by ${one ? "its" : "their"} budget and submit time`,
  },
};

/** At most this many ids in a sentence; the rest are counted (--json lists them all). */
const SHOWN = 20;
const idList = (ids: readonly number[]) =>
  ids
    .slice(0, SHOWN)
    .map((id) => `#${id}`)
    .join(", ") + (ids.length > SHOWN ? ` and ${ids.length - SHOWN} more` : "");

/** "Cancel 27 jobs?": the question before acting on the jobs chosen. */
export const jobActionQuestion = (action: JobAction, n: number): string =>
  `${action[0]!.toUpperCase()}${action.slice(1)} ${jobs(n)}?`;

/** "Held 2 jobs: #41, #42; the scheduler skips them until they are released." */
export function jobActionDoneText(r: JobActionResult): string {
  const { done, after } = DONE[r.action];
  if (r.done.length === 0) return `No job was ${done}.`;
  return `${done[0]!.toUpperCase()}${done.slice(1)} ${jobs(r.done.length)}: ${idList(r.done)}; ${after(r.done.length === 1)}.`;
}

/** The refused jobs, one line each with its reason; null when none was refused. */
export function jobActionRefusedText(r: JobActionResult): string | null {
  if (r.refused.length === 0) return null;
  return [`${jobs(r.refused.length)} not ${DONE[r.action].done}:`, ...r.refused.map((x) => `  #${x.id}: ${x.reason}`)].join("\n");
}

/** "cancelled", as a sentence says nothing was done: "nothing was cancelled". */
export const jobActionDoneWord = (action: JobAction): string => DONE[action].done;
