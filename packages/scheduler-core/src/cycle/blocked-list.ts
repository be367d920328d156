import type { EntryColumns } from "../entry-columns";

/**
 * The jobs of the debug and allocated lanes that were tried and did not start, in order, for the R3
 * retry (lanes.ts): each is entry k of its queue's columns, and the reason draft its lane gave it.
 * Kept as runs of one queue's consecutive entries with consecutive drafts, which is how a lane adds
 * them on an overloaded cluster (a budget's jobs told one shared outcome after another): a run grows
 * by a count (three pushes a job were about 6% of a 24-day philly-overload profile).
 */
export class BlockedList {
  /** Per run: its first job's place in the list, its queue's columns, its first entry there, its first job's draft, its jobs. */
  readonly firstJob: number[] = [];
  readonly cols: EntryColumns[] = [];
  readonly firstAt: number[] = [];
  readonly firstDraft: number[] = [];
  readonly size: number[] = [];
  /** Jobs in all runs. */
  count = 0;

  /** Entries k.. of `cols`, `count` of them, whose drafts are `draft`.. (ReasonDrafts). */
  add(cols: EntryColumns, k: number, count: number, draft: number): void {
    const r = this.cols.length - 1;
    if (
      r >= 0 &&
      this.cols[r] === cols &&
      this.firstAt[r]! + this.size[r]! === k &&
      this.firstDraft[r]! + this.size[r]! === draft
    ) {
      this.size[r]! += count;
    } else {
      this.firstJob.push(this.count);
      this.cols.push(cols);
      this.firstAt.push(k);
      this.firstDraft.push(draft);
      this.size.push(count);
    }
    this.count += count;
  }

  get runs(): number {
    return this.cols.length;
  }
}
