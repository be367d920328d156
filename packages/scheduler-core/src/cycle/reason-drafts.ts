import { compareById } from "../budget-tree";
import type { PendingEntry } from "../order-pending";
import type { PendingJob, PendingReason, PendingReasonCode, PendingReasonDetails } from "../types";

/**
 * Pending reasons in the order they were decided (R10). The output objects are made when a job is
 * blocked and get their sentence at the end (some numbers need the final state, see explanations.ts);
 * what the cycle needs beside them sits in parallel arrays, so a blocked job costs no extra object
 * (10,000 pending jobs a cycle).
 */
export class ReasonDrafts {
  readonly out: (PendingReason | null)[] = []; // null: started in the retry pass
  readonly job: PendingJob[] = [];
  readonly entry: (PendingEntry | null)[] = [];
  /** Fill earliestStart from the end-of-cycle estimate. */
  readonly estimate: boolean[] = [];

  get length(): number {
    return this.out.length;
  }

  push(
    entry: PendingEntry | null,
    job: PendingJob,
    code: PendingReasonCode,
    details: PendingReasonDetails,
    estimate: boolean,
  ): void {
    this.out.push({ code, sentence: "", details });
    this.job.push(job);
    this.entry.push(entry);
    this.estimate.push(estimate);
  }

  /** Sorts everything pushed so far by job id (only the unordered reasons exist when it is called). */
  sortById(): void {
    const perm = this.job.map((_, i) => i).sort((a, b) => compareById(this.job[a]!, this.job[b]!));
    const reorder = <T>(xs: T[]): void => {
      const copy = perm.map((i) => xs[i]!);
      for (let i = 0; i < copy.length; i++) xs[i] = copy[i]!;
    };
    reorder(this.out);
    reorder(this.job);
    reorder(this.entry);
    reorder(this.estimate);
  }
}

/** The numbers every reason of a blocked job carries, in this key order. */
export function detailsOf(e: PendingEntry, position: number, ratio: number, largestFreeGpus: number): PendingReasonDetails {
  return {
    position,
    jobsAhead: position - 1,
    ratio,
    gpus: e.job.gpus,
    largestFreeGpus,
    earliestStart: null,
  };
}
