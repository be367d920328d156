import { compareById } from "../budget-tree";
import type { PendingEntry } from "../order-pending";
import type { BlockedOutcome } from "./blocked-memo";
import type { PendingJob, PendingReason, PendingReasonCode, PendingReasonDetails } from "../types";

/** Details beyond the numbers every reason carries, in the order they are added to its details. */
export type ReasonExtras = Partial<PendingReasonDetails>;

/**
 * Pending reasons in the order they were decided (R10), kept as columns: a blocked job costs a few
 * numbers pushed onto arrays, not a reason and a details object (thousands of pending jobs a cycle,
 * most of whose reasons no caller of the simulator ever reads). `reason(k)` builds the output object
 * exactly as the cycle decided it; explanations.ts does so when the result's reasons are first read.
 *
 * The columns are per row, not per draft: a row is one draft, or a run of drafts that differ only in
 * their job and position (one queue's consecutive entries told one shared outcome in consecutive
 * positions, lanes.ts). On an overloaded cluster most of a lane's drafts come in such runs, and a run
 * costs one row however long it is.
 */
export class ReasonDrafts {
  /** Per row: its first draft. Rows are in draft order, so this is ascending. */
  private readonly first: number[] = [];
  /** Per row: the queue whose entries from `at` are its drafts' (a row pushed by pushRun), or null. */
  private readonly queue: (readonly PendingEntry[] | null)[] = [];
  private readonly at: number[] = [];
  /** Per row of one draft not from a queue: its entry (an ordered job), or null and its job. */
  private readonly entry: (PendingEntry | null)[] = [];
  private readonly job: (PendingJob | null)[] = [];
  private readonly code: PendingReasonCode[] = [];
  /**
   * 1-based position in order of the row's first draft, the next drafts' following; -1 for a job
   * that was not ordered (HELD, INVALID_CONTRACT).
   */
  private readonly position: number[] = [];
  /** Its budget's projected ratio when it was considered. */
  private readonly ratio: number[] = [];
  private readonly largestFree: number[] = [];
  /** Extra details (reservation, debug cap, margin, problem), or null for none. */
  private readonly extras: (ReasonExtras | null)[] = [];
  /** The row rowOf found last: the readers walk the drafts in order. */
  private lastRow = 0;
  /** Drafts in all rows. */
  length = 0;
  /**
   * Drafts that asked for an earliest-start estimate, in order, and the estimates (explanations.ts
   * sets them at the end of the cycle). Both sparse, like `started`: a few drafts of thousands.
   */
  readonly estimated: number[] = [];
  readonly earliest = new Map<number, number | null>();
  /** Started in the retry pass: no reason (holes read as not started). */
  readonly started: boolean[] = [];
  private margin: ReasonExtras | null = null;
  private victimCost: ReasonExtras | null = null;
  /** Drafts started in the retry pass, and allocated-lane drafts not started (CycleStats.blockedAllocated). */
  startedCount = 0;
  blockedAllocated = 0;

  push(
    entry: PendingEntry | null,
    job: PendingJob,
    code: PendingReasonCode,
    position: number | null,
    ratio: number,
    largestFree: number,
    extras: ReasonExtras | null,
    estimate: boolean,
  ): void {
    if (entry !== null) this.addRow(null, 0, entry, null, 1, code, position ?? -1, ratio, largestFree, extras, estimate);
    else this.addRow(null, 0, null, job, 1, code, -1, ratio, largestFree, extras, estimate);
    if (entry !== null && entry.lane !== "UNALLOCATED") this.blockedAllocated++;
  }

  /**
   * The drafts of `count` ordered jobs, entries `from..` of `queue`, told one shared outcome
   * (blocked-memo.ts) in consecutive positions from `position`; `allocated` when they are not
   * unallocated work.
   */
  pushRun(
    queue: readonly PendingEntry[],
    from: number,
    count: number,
    allocated: boolean,
    outcome: BlockedOutcome,
    position: number,
    ratio: number,
    largestFree: number,
  ): void {
    const { code, extras, estimate } = outcome;
    this.addRow(queue, from, null, null, count, code, position, ratio, largestFree, extras, estimate);
    if (allocated) this.blockedAllocated += count;
  }

  private addRow(
    queue: readonly PendingEntry[] | null,
    at: number,
    entry: PendingEntry | null,
    job: PendingJob | null,
    count: number,
    code: PendingReasonCode,
    position: number,
    ratio: number,
    largestFree: number,
    extras: ReasonExtras | null,
    estimate: boolean,
  ): void {
    this.first.push(this.length);
    this.queue.push(queue);
    this.at.push(at);
    this.entry.push(entry);
    this.job.push(job);
    this.code.push(code);
    this.position.push(position);
    this.ratio.push(ratio);
    this.largestFree.push(largestFree);
    this.extras.push(extras);
    if (estimate) for (let i = 0; i < count; i++) this.estimated.push(this.length + i);
    this.length += count;
  }

  /** The row of draft k. */
  private rowOf(k: number): number {
    const first = this.first;
    let r = this.lastRow;
    if (r >= first.length || first[r]! > k || (r + 1 < first.length && first[r + 1]! <= k)) {
      // Not the last row read: the last one whose first draft is at or before k.
      let lo = 0;
      let hi = first.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (first[mid]! <= k) lo = mid;
        else hi = mid - 1;
      }
      r = lo;
      this.lastRow = r;
    }
    return r;
  }

  /** Draft k's entry (an ordered job), or null for a job that was not ordered. */
  entryOf(k: number): PendingEntry | null {
    const r = this.rowOf(k);
    const queue = this.queue[r];
    return queue ? queue[this.at[r]! + k - this.first[r]!]! : this.entry[r]!;
  }

  /** Draft k's job. */
  jobOf(k: number): PendingJob {
    return this.entryOf(k)?.job ?? this.job[this.rowOf(k)]!;
  }

  /** Draft k's 1-based position in order, -1 for a job that was not ordered. */
  positionOf(k: number): number {
    const r = this.rowOf(k);
    const p = this.position[r]!;
    return p < 0 ? p : p + k - this.first[r]!;
  }

  /** Draft k's budget's projected ratio when it was considered. */
  ratioOf(k: number): number {
    return this.ratio[this.rowOf(k)]!;
  }

  /** Draft k's GPUs: its entry's (an entry carries its job's GPUs), else its job's. */
  gpusOf(k: number): number {
    return (this.entryOf(k) ?? this.jobOf(k)).gpus;
  }

  /** Draft k's job started in the retry pass (an allocated-lane job): it has no reason. */
  markStarted(k: number): void {
    this.started[k] = true;
    this.startedCount++;
    const entry = this.entryOf(k);
    if (entry && entry.lane !== "UNALLOCATED") this.blockedAllocated--;
  }

  /** DEBUG_VICTIM_COST's extra detail, one shared object as marginExtras'. */
  victimCostExtras(cost: number): ReasonExtras {
    if (this.victimCost === null || this.victimCost.debugVictimMaxCost !== cost) this.victimCost = { debugVictimMaxCost: cost };
    return this.victimCost;
  }

  /** BUDGET_OVER_SHARE's extra detail, one shared object (it is copied into each reason's details). */
  marginExtras(margin: number): ReasonExtras {
    if (this.margin === null || this.margin.margin !== margin) this.margin = { margin };
    return this.margin;
  }

  /** The output reason of draft k, its sentence still empty. */
  reason(k: number): PendingReason {
    const r = this.rowOf(k);
    const p = this.positionOf(k);
    const details: PendingReasonDetails = {
      position: p < 0 ? null : p,
      jobsAhead: p < 0 ? 0 : p - 1,
      ratio: this.ratio[r]!,
      gpus: this.gpusOf(k),
      largestFreeGpus: this.largestFree[r]!,
      earliestStart: this.earliest.get(k) ?? null,
    };
    const extras = this.extras[r];
    if (extras) Object.assign(details, extras);
    return { code: this.code[r]!, sentence: "", details };
  }

  /**
   * Sorts everything pushed so far by job id. Only the unordered reasons exist when it is called:
   * rows of one draft each, none asking for an estimate or started.
   */
  sortById(): void {
    if (this.first.length !== this.length) throw new Error("ReasonDrafts.sortById: only single drafts may be sorted");
    const perm = this.first.map((_, i) => i).sort((a, b) => compareById(this.jobOf(a), this.jobOf(b)));
    const reorder = <T>(xs: T[]): void => {
      const copy = perm.map((i) => xs[i]!);
      for (let i = 0; i < copy.length; i++) xs[i] = copy[i]!;
    };
    reorder(this.queue);
    reorder(this.at);
    reorder(this.entry);
    reorder(this.job);
    reorder(this.code);
    reorder(this.position);
    reorder(this.ratio);
    reorder(this.largestFree);
    reorder(this.extras);
  }
}

/** The details of a reservation a reason names: its job and start (earliestStart = from). */
export function reservationExtras(jobId: string, from: number): ReasonExtras {
  return { earliestStart: from, reservedForJobId: jobId, reservedFrom: from };
}
