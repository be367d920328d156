import type { ClusterShape } from "./contract";
import type { FairTree, TreeShape } from "./fair-tree";
import type { PendingEntry } from "./order-pending";
import type { ClusterSnapshot, PendingJob, PolicyConfig } from "./types";

/** A job admitted by an earlier cycle: its entry, and the fields admission read when it made it. */
interface Admitted {
  entry: PendingEntry;
  /** Its budget had entitlement (its lane depends on it, R3). */
  ent: boolean;
  budgetId: string;
  gpus: number;
  minRuntime: number;
  maxRuntime: number | null;
  gracePeriod: number | null;
  /** The cycle that last admitted it (carried reservations find their holders by it). */
  seen: number;
}

/**
 * Admission kept between the cycles of a scheduler (createScheduler): a pending job that was
 * admitted keeps its entry (budget index, lane, order keys) while the job object and every field
 * admission read are unchanged, and so is what it was checked against: the tree's shape, the
 * cluster's shape, the policy's limits and the budget's entitlement. A held job, a job with
 * dependencies or an invalid one is admitted afresh every cycle (its answer can change with time or
 * with other jobs). Speed only: an overloaded replay's backlog of 10,000 jobs was otherwise looked
 * up, validated and given a new entry every cycle, for the same answer (philly-overload, 60 days: a
 * quarter of the replay's time). Kept only for a caller that passes the same pending array again, as
 * the kept board is (working-state.ts); the stateless runCycle never keeps one.
 */
export class KeptAdmission {
  private readonly byJob = new WeakMap<PendingJob, Admitted>();
  /** Whether anything was kept (a fresh one answers without a lookup). */
  private any = false;
  /** Bumped by every cycle that admits through it. */
  private cycle = 0;
  /** Keep what this cycle admits (the caller passed the same pending array as last cycle). */
  keeping = false;
  private lastPending: readonly PendingJob[] | null = null;
  /** The holders of the reservations the last cycle made, by job id (carried-reservations.ts). */
  private holders = new Map<string, PendingJob>();

  private constructor(
    private readonly shape: TreeShape,
    private readonly policy: PolicyConfig,
    private readonly nodeSize: number,
    private readonly totalGpus: number,
    private readonly maxMinRuntime: number | null | undefined,
  ) {}

  /** The kept admission that still holds for this cycle, else a new, empty one. */
  static forCycle(
    kept: KeptAdmission | null,
    tree: FairTree,
    shape: ClusterShape,
    policy: PolicyConfig,
    snapshot: ClusterSnapshot,
  ): KeptAdmission {
    const maxMinRuntime = snapshot.cluster.maxMinRuntime;
    const next =
      kept !== null &&
      kept.shape === tree.shape &&
      kept.policy === policy &&
      kept.nodeSize === shape.nodeSize &&
      kept.totalGpus === shape.totalGpus &&
      kept.maxMinRuntime === maxMinRuntime
        ? kept
        : new KeptAdmission(tree.shape, policy, shape.nodeSize, shape.totalGpus, maxMinRuntime);
    if (kept !== null && next !== kept) {
      next.lastPending = kept.lastPending;
      next.holders = kept.holders;
    }
    next.keeping = next.lastPending === snapshot.pending;
    next.lastPending = snapshot.pending;
    next.cycle++;
    return next;
  }

  /** The entry this job was admitted with, if nothing admission read has changed since. */
  entryOf(job: PendingJob, tree: FairTree): PendingEntry | null {
    if (!this.any) return null;
    const a = this.byJob.get(job);
    if (
      a === undefined ||
      job.held ||
      (job.dependencies !== undefined && job.dependencies.length > 0) ||
      job.budgetId !== a.budgetId ||
      job.gpus !== a.gpus ||
      job.minRuntime !== a.minRuntime ||
      job.maxRuntime !== a.maxRuntime ||
      job.gracePeriod !== a.gracePeriod ||
      job.priority !== a.entry.priority ||
      job.submittedAt !== a.entry.submittedAt ||
      job.id !== a.entry.id ||
      tree.hasEntitlement(a.entry.budget) !== a.ent
    )
      return null;
    a.seen = this.cycle;
    return a.entry;
  }

  /** Keeps a job's entry, made this cycle with its budget's entitlement `ent`. */
  keep(job: PendingJob, entry: PendingEntry, ent: boolean): void {
    if (!this.keeping) return;
    this.any = true;
    this.byJob.set(job, {
      entry,
      ent,
      budgetId: job.budgetId,
      gpus: job.gpus,
      minRuntime: job.minRuntime,
      maxRuntime: job.maxRuntime,
      gracePeriod: job.gracePeriod,
      seen: this.cycle,
    });
  }

  /** This cycle's entry of a job admitted by it (kept or made), else null. */
  admittedNow(job: PendingJob): PendingEntry | null {
    if (!this.any) return null;
    const a = this.byJob.get(job);
    return a !== undefined && a.seen === this.cycle ? a.entry : null;
  }

  /** Remembers the holders of this cycle's reservations, for the next cycle to find by id. */
  rememberHolders(holders: readonly PendingEntry[]): void {
    this.holders = new Map(holders.map((e) => [e.id, e.job]));
  }

  /**
   * This cycle's entry of the pending job with this id that held a reservation last cycle, or
   * undefined when that is not known here (then the caller looks through the entries).
   */
  holderNow(jobId: string): PendingEntry | undefined {
    const job = this.holders.get(jobId);
    return (job && this.admittedNow(job)) ?? undefined;
  }
}
