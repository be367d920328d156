import { compareById } from "../budget-tree";
import type { PendingEntry } from "../order-pending";
import type { PendingJob, PendingReason, PendingReasonCode, PendingReasonDetails } from "../types";

/** Details beyond the numbers every reason carries, in the order they are added to its details. */
export type ReasonExtras = Partial<PendingReasonDetails>;

/**
 * Pending reasons in the order they were decided (R10), kept as columns: a blocked job costs a few
 * numbers pushed onto arrays, not a reason and a details object (thousands of pending jobs a cycle,
 * most of whose reasons no caller of the simulator ever reads). `reason(k)` builds the output object
 * exactly as the cycle decided it; explanations.ts does so when the result's reasons are first read.
 */
export class ReasonDrafts {
  /** The job of a draft without an entry (not ordered); the others' is their entry's (jobOf). */
  readonly job: (PendingJob | null)[] = [];
  readonly entry: (PendingEntry | null)[] = [];
  readonly code: PendingReasonCode[] = [];
  /** 1-based position in order; -1 for a job that was not ordered (HELD, INVALID_CONTRACT). */
  readonly position: number[] = [];
  /** Its budget's projected ratio when it was considered. */
  readonly ratio: number[] = [];
  readonly gpus: number[] = [];
  readonly largestFree: number[] = [];
  /** Extra details (reservation, debug cap, margin, problem), or null for none. */
  readonly extras: (ReasonExtras | null)[] = [];
  /**
   * Drafts that asked for an earliest-start estimate, in order, and the estimates (explanations.ts
   * sets them at the end of the cycle). Both sparse, like `started`: a few drafts of thousands.
   */
  readonly estimated: number[] = [];
  readonly earliest = new Map<number, number | null>();
  /** Started in the retry pass: no reason (holes read as not started). */
  readonly started: boolean[] = [];
  private margin: ReasonExtras | null = null;
  /** Drafts started in the retry pass, and allocated-lane drafts not started (CycleStats.blockedAllocated). */
  startedCount = 0;
  blockedAllocated = 0;

  get length(): number {
    return this.job.length;
  }

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
    if (entry !== null)
      this.pushDraft(
        entry,
        null,
        entry.gpus,
        entry.lane !== "UNALLOCATED",
        code,
        position ?? -1,
        ratio,
        largestFree,
        extras,
        estimate,
      );
    else this.pushDraft(null, job, job.gpus, false, code, -1, ratio, largestFree, extras, estimate);
  }

  /**
   * A draft from what a walk read of its job: an ordered job's `entry` (its job then left unread:
   * jobOf reads it, entry-columns.ts) or an unordered one's `job`, its `gpus`, and whether it is not
   * unallocated work.
   */
  pushDraft(
    entry: PendingEntry | null,
    job: PendingJob | null,
    gpus: number,
    allocated: boolean,
    code: PendingReasonCode,
    position: number,
    ratio: number,
    largestFree: number,
    extras: ReasonExtras | null,
    estimate: boolean,
  ): void {
    this.job.push(job);
    this.entry.push(entry);
    this.code.push(code);
    this.position.push(position);
    this.ratio.push(ratio);
    this.gpus.push(gpus);
    this.largestFree.push(largestFree);
    this.extras.push(extras);
    if (estimate) this.estimated.push(this.job.length - 1);
    if (allocated) this.blockedAllocated++;
  }

  /** Draft k's job. */
  jobOf(k: number): PendingJob {
    return this.job[k] ?? this.entry[k]!.job;
  }

  /** Draft k's job started in the retry pass (an allocated-lane job): it has no reason. */
  markStarted(k: number): void {
    this.started[k] = true;
    this.startedCount++;
    const entry = this.entry[k];
    if (entry && entry.lane !== "UNALLOCATED") this.blockedAllocated--;
  }

  /** BUDGET_OVER_SHARE's extra detail, one shared object (it is copied into each reason's details). */
  marginExtras(margin: number): ReasonExtras {
    if (this.margin === null || this.margin.margin !== margin) this.margin = { margin };
    return this.margin;
  }

  /** The output reason of draft k, its sentence still empty. */
  reason(k: number): PendingReason {
    const p = this.position[k]!;
    const details: PendingReasonDetails = {
      position: p < 0 ? null : p,
      jobsAhead: p < 0 ? 0 : p - 1,
      ratio: this.ratio[k]!,
      gpus: this.gpus[k]!,
      largestFreeGpus: this.largestFree[k]!,
      earliestStart: this.earliest.get(k) ?? null,
    };
    const extras = this.extras[k];
    if (extras) Object.assign(details, extras);
    return { code: this.code[k]!, sentence: "", details };
  }

  /** Sorts everything pushed so far by job id (only the unordered reasons exist when it is called). */
  sortById(): void {
    const perm = this.job.map((_, i) => i).sort((a, b) => compareById(this.jobOf(a), this.jobOf(b)));
    const reorder = <T>(xs: T[]): void => {
      const copy = perm.map((i) => xs[i]!);
      for (let i = 0; i < copy.length; i++) xs[i] = copy[i]!;
    };
    reorder(this.job);
    reorder(this.entry);
    reorder(this.code);
    reorder(this.position);
    reorder(this.ratio);
    reorder(this.gpus);
    reorder(this.largestFree);
    reorder(this.extras);
    // Only unordered reasons (HELD, INVALID_CONTRACT, dependencies) exist yet: none asked for an
    // estimate or was started.
  }
}

/** The details of a reservation a reason names: its job and start (earliestStart = from). */
export function reservationExtras(jobId: string, from: number): ReasonExtras {
  return { earliestStart: from, reservedForJobId: jobId, reservedFrom: from };
}
