import { compareEntries, queueLowerBound } from "./order-pending";
import type { PendingJob } from "./types";

/** What was added to and removed from a backlog since a version, in the order it happened. */
export interface BacklogChanges {
  readonly jobs: readonly PendingJob[];
  /** true: jobs[i] was added; false: removed. */
  readonly added: readonly boolean[];
}

/**
 * The pending jobs of a caller that keeps them between cycles (the simulator's engine), in queue
 * order (R2: higher priority, then earlier original submit time, then id; the keys never change
 * while a job waits), with a journal of the jobs added and removed.
 *
 * Given as the snapshot's `backlog`, with `items` as its `pending` array, it lets a kept scheduler's
 * admission (kept-admission.ts) take in only what changed since its last cycle instead of comparing
 * the whole array with last cycle's: on a replay with a backlog of 20,000 jobs and a handful of
 * changes a cycle, that comparison was a fifth of the replay's time. Its state is private (#) so a
 * copy of a snapshot (JSON, structuredClone) carries no stale backlog: a copy's `backlog.items` is
 * never its `pending`, and the scheduler then compares the arrays as before.
 */
export class PendingBacklog {
  readonly #items: PendingJob[] = [];
  /** The journal: the changes since version #base, forgotten once read (changesSince). */
  #jobs: PendingJob[] = [];
  #added: boolean[] = [];
  #base = 0;

  /** The jobs in queue order: the array a snapshot passes as `pending` (change it only through add and remove). */
  get items(): readonly PendingJob[] {
    return this.#items;
  }

  /** Bumped by every add and remove. */
  get version(): number {
    return this.#base + this.#jobs.length;
  }

  add(job: PendingJob): void {
    const items = this.#items;
    const i =
      items.length === 0 || compareEntries(items[items.length - 1]!, job) < 0 ? items.length : queueLowerBound(items, job);
    if (i < items.length && items[i]!.id === job.id) throw new Error(`backlog: job ${job.id} is already pending`);
    if (i === items.length) items.push(job);
    else items.splice(i, 0, job);
    this.note(job, true);
  }

  remove(job: PendingJob): void {
    const i = queueLowerBound(this.#items, job);
    if (this.#items[i] !== job) throw new Error(`backlog: job ${job.id} is not pending`);
    this.#items.splice(i, 1);
    this.note(job, false);
  }

  /**
   * The changes since `version` (a value this backlog's `version` had), in order, or null when the
   * journal no longer reaches back that far. What came before `version` is forgotten: one reader
   * (the scheduler of this backlog's cluster) keeps the journal short.
   */
  changesSince(version: number): BacklogChanges | null {
    if (version < this.#base || version > this.version) return null;
    const drop = version - this.#base;
    if (drop > 0) {
      this.#jobs.splice(0, drop);
      this.#added.splice(0, drop);
      this.#base = version;
    }
    return { jobs: this.#jobs.slice(), added: this.#added.slice() };
  }

  private note(job: PendingJob, added: boolean): void {
    // Unread for long (no kept scheduler reads it): forget it, a reader then compares the arrays.
    if (this.#jobs.length > 4096 + this.#items.length) {
      this.#base = this.version;
      this.#jobs = [];
      this.#added = [];
    }
    this.#jobs.push(job);
    this.#added.push(added);
  }
}
