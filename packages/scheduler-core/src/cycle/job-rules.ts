import type { PendingEntry } from "../order-pending";
import type { ClusterSnapshot, JobBase, JobDependency, PendingReasonCode, PendingReasonDetails } from "../types";

/**
 * The rules a user sets on their own jobs, beside the fair-share policy:
 *
 *   dependencies (`--after JOB[:ok|:any]`): a job waits until every job it depends on has ended
 *     ("any") or completed successfully ("ok", the default). It is not ordered meanwhile (reason
 *     DEPENDENCY). When an "ok" dependency ended any other way, the dependency can never be met: the job
 *     stays pending, never starts, and says so (DEPENDENCY_NEVER_SATISFIED, Slurm's
 *     DependencyNeverSatisfied) until its owner cancels it. A job that failed but will be retried is
 *     still WAITING, so its dependants keep waiting for the retry.
 *   array caps (`--array 0-99%10`): at most N tasks of one array hold GPUs at once (running, leaving,
 *     or started this cycle); the next task waits with ARRAY_LIMIT.
 *   per-user limits: a budget's managers may cap the GPUs one user's jobs charged to it hold on a
 *     cluster at once; the job that would go over waits with USER_LIMIT.
 *
 * Leaving jobs count until they have exited, so a cap is never exceeded while a preempted task is
 * still in its grace period.
 */

/** Whether one dependency is met, still open, or can never be met. */
export function dependencyStatus(d: Pick<JobDependency, "condition" | "state">): "MET" | "WAITING" | "NEVER" {
  if (d.state === "WAITING") return "WAITING";
  if (d.condition === "any") return "MET";
  return d.state === "COMPLETED" ? "MET" : "NEVER";
}

/**
 * Why a pending job's dependencies hold it, or null when they are all met: the unmeetable ones
 * first (the job will never start), else the ones still waited for. Sorted by job id.
 */
export function dependencyHold(
  deps: readonly JobDependency[] | undefined,
): { code: "DEPENDENCY" | "DEPENDENCY_NEVER_SATISFIED"; dependencies: JobDependency[] } | null {
  if (!deps || deps.length === 0) return null;
  const never: JobDependency[] = [];
  const waiting: JobDependency[] = [];
  for (const d of deps) {
    const st = dependencyStatus(d);
    if (st === "NEVER") never.push(d);
    else if (st === "WAITING") waiting.push(d);
  }
  const pick = never.length > 0 ? never : waiting;
  if (pick.length === 0) return null;
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  const byId = (a: JobDependency, b: JobDependency) =>
    a.jobId.length - b.jobId.length || cmp(a.jobId, b.jobId) || cmp(a.condition, b.condition) || cmp(a.state, b.state);
  return {
    code: never.length > 0 ? "DEPENDENCY_NEVER_SATISFIED" : "DEPENDENCY",
    dependencies: [...pick].sort(byId).map((d) => ({ jobId: d.jobId, condition: d.condition, state: d.state })),
  };
}

export interface LimitBlock {
  code: Extract<PendingReasonCode, "ARRAY_LIMIT" | "USER_LIMIT">;
  details: Partial<PendingReasonDetails>;
}

/**
 * Array caps and per-user limits through one cycle: the counts start from every running job (leaving
 * ones included; `arrayRunning`: RunningTotals') and grow with each start.
 */
export class JobLimits {
  private readonly arrayRunning: Map<string, number>;
  private readonly userGpus = new Map<string, number>();
  private readonly limitOf = new Map<string, number>();
  /** Per tree index (FairTree), whether its budget has a per-user limit. */
  private readonly limited: boolean[] = [];

  constructor(snapshot: ClusterSnapshot, arrayRunning: ReadonlyMap<string, number>, indexOf: (id: string) => number | undefined) {
    for (const n of snapshot.tree) {
      const l = n.maxGpusPerUser;
      if (l === null || l === undefined) continue;
      this.limitOf.set(n.id, l);
      const i = indexOf(n.id);
      if (i !== undefined) this.limited[i] = true;
    }
    this.arrayRunning = new Map(arrayRunning);
    if (this.limitOf.size > 0) for (const j of snapshot.running) this.countUser(j);
  }

  /**
   * The limit that stops this job now, if any (array cap first: it is the more specific). The job
   * itself is read only when a limit can apply: its entry says whether it is a capped array task.
   */
  blocked(e: PendingEntry): LimitBlock | null {
    if (!this.mayBlock(e.capped, e.budget)) return null;
    const job = e.job;
    const cap = job.arrayMaxRunning;
    if (job.arrayId != null && cap != null) {
      const running = this.arrayRunning.get(job.arrayId) ?? 0;
      if (running >= cap)
        return { code: "ARRAY_LIMIT", details: { arrayId: job.arrayId, arrayRunning: running, arrayMaxRunning: cap } };
    }
    if (this.limitOf.size === 0) return null;
    const limit = this.limitOf.get(job.budgetId);
    if (limit !== undefined) {
      const held = this.userGpus.get(userKey(job)) ?? 0;
      if (held + job.gpus > limit) return { code: "USER_LIMIT", details: { userGpus: held, userLimit: limit } };
    }
    return null;
  }

  /**
   * Can a limit stop a job at all: it is a capped array task (`capped`), or its budget (tree index)
   * has a per-user limit? The limit a job obeys is its own budget's (blocked).
   */
  mayBlock(capped: boolean, budget: number): boolean {
    return capped || (this.limitOf.size > 0 && this.limited[budget] === true);
  }

  /** A job holds GPUs (running at the start of the cycle, or started in it). */
  started(job: JobBase): void {
    if (job.arrayId != null) this.arrayRunning.set(job.arrayId, (this.arrayRunning.get(job.arrayId) ?? 0) + 1);
    this.countUser(job);
  }

  private countUser(job: JobBase): void {
    if (this.limitOf.size > 0 && this.limitOf.has(job.budgetId)) {
      const k = userKey(job);
      this.userGpus.set(k, (this.userGpus.get(k) ?? 0) + job.gpus);
    }
  }
}

const userKey = (job: Pick<JobBase, "budgetId" | "userId">): string => `${job.budgetId}\u0000${job.userId}`;
