import { zeros } from "./fair-tree";
import type { JobState } from "./job-state";

/**
 * What the running jobs add up to as a cycle starts, before any move: the GPUs each budget holds
 * (R2), its interruptible GPUs on schedulable nodes (R4), each user's debug GPUs (R5 cap), each
 * array's running tasks (array cap), and the earliest maxRuntime end. A fresh load sums them over
 * the jobs (`of`); a kept state (kept-working-state.ts) adds and removes the jobs that arrived and
 * left, and moves a job's GPUs to interruptible when its protection ends, so a cycle does not walk
 * the running jobs to learn them. GPU counts are integers: sums in any order are exact.
 *
 * A job counts as a fresh load sees it: leaving jobs (stopping) hold nothing and are never
 * interruptible, but their tasks still count against their array's cap.
 */
export class RunningTotals {
  readonly held: number[];
  readonly interruptible: number[];
  readonly debugByUser = new Map<string, number>();
  readonly arrayRunning = new Map<string, number>();
  /** min(maxEnd) over the jobs not leaving; Infinity when none has a maxRuntime. */
  earliestMaxEnd = Infinity;
  /** The earliest end may have left with a job: recount before it is read. */
  private maxEndStale = false;

  constructor(budgets: number) {
    this.held = zeros(budgets);
    this.interruptible = zeros(budgets);
  }

  /** The totals of `jobs` at `now`, as loaded (none gone or new yet). */
  static of(jobs: readonly JobState[], budgets: number, now: number): RunningTotals {
    const t = new RunningTotals(budgets);
    for (const js of jobs) t.add(js, now);
    return t;
  }

  add(js: JobState, now: number): void {
    this.count(js, now, 1);
    if (!js.stopping && js.maxEnd < this.earliestMaxEnd) this.earliestMaxEnd = js.maxEnd;
  }

  /** `now`: the time the job was last counted at (whether it counted as interruptible then). */
  remove(js: JobState, now: number): void {
    this.count(js, now, -1);
    if (!js.stopping && js.maxEnd === this.earliestMaxEnd && js.maxEnd !== Infinity) this.maxEndStale = true;
  }

  /** A counted job's protection ended: its GPUs become interruptible (R4). */
  protectionEnded(js: JobState): void {
    if (js.budget >= 0) this.interruptible[js.budget] = this.interruptible[js.budget]! + js.schedulableGpus;
  }

  /** Recounts the earliest end if the job that set it left (`jobs`: the jobs counted now). */
  settle(jobs: readonly JobState[]): void {
    if (!this.maxEndStale) return;
    this.maxEndStale = false;
    let m = Infinity;
    for (const js of jobs) if (!js.stopping && js.maxEnd < m) m = js.maxEnd;
    this.earliestMaxEnd = m;
  }

  private count(js: JobState, now: number, sign: 1 | -1): void {
    const job = js.job;
    if (job.arrayId != null) bump(this.arrayRunning, job.arrayId, sign);
    if (js.stopping) return;
    if (js.charged && js.budget >= 0) {
      this.held[js.budget] = this.held[js.budget]! + sign * job.gpus;
      if (now >= js.protectedUntil) this.interruptible[js.budget] = this.interruptible[js.budget]! + sign * js.schedulableGpus;
    }
    if (js.debug) bump(this.debugByUser, job.userId, sign * job.gpus);
  }
}

function bump(m: Map<string, number>, key: string, by: number): void {
  const v = (m.get(key) ?? 0) + by;
  if (v === 0) m.delete(key);
  else m.set(key, v);
}
