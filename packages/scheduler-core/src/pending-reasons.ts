import type { PendingReason } from "./types";

/**
 * A cycle's pending reasons, read like a Map from job id to reason. Kept as two parallel arrays with
 * the index built on the first lookup: a Map built every cycle cost ~4 ms of a 25 ms cycle at 10,000
 * pending jobs (the ids are fresh strings from each snapshot), and the worker only iterates them.
 * Iteration order: HELD and INVALID_CONTRACT jobs by id, then the others in the order the cycle took them.
 *
 * The sentences may be written on the first read of a reason (`finish`): a caller that acts only on
 * the plan (the simulator, at thousands of pending jobs a cycle) never pays for wording them.
 */
export class PendingReasons implements Iterable<[string, PendingReason]> {
  private index: Map<string, number> | null = null;

  constructor(
    private ids: readonly string[],
    private readonly reasons: readonly PendingReason[],
    /** Completes the reasons (their sentences); run once, before any reason is read. */
    private finish: (() => void) | null = null,
    /**
     * Lists the ids when they are first needed (`ids` is then empty and `count` says how many):
     * a caller that reads only the size (the simulator) never pays for the list.
     */
    private listIds: (() => readonly string[]) | null = null,
    private readonly count = ids.length,
  ) {}

  static empty(): PendingReasons {
    return new PendingReasons([], []);
  }

  get size(): number {
    return this.count;
  }

  get(jobId: string): PendingReason | undefined {
    const i = this.lookup().get(jobId);
    return i === undefined ? undefined : this.complete()[i];
  }

  has(jobId: string): boolean {
    return this.lookup().has(jobId);
  }

  keys(): IterableIterator<string> {
    return this.idList().values();
  }

  values(): IterableIterator<PendingReason> {
    return this.complete().values();
  }

  *entries(): IterableIterator<[string, PendingReason]> {
    const ids = this.idList();
    const reasons = this.complete();
    for (let i = 0; i < ids.length; i++) yield [ids[i]!, reasons[i]!];
  }

  [Symbol.iterator](): IterableIterator<[string, PendingReason]> {
    return this.entries();
  }

  /** JSON as a plain object keyed by job id. */
  toJSON(): Record<string, PendingReason> {
    return Object.fromEntries(this.entries());
  }

  private idList(): readonly string[] {
    if (this.listIds !== null) {
      const list = this.listIds;
      this.listIds = null;
      this.ids = list();
    }
    return this.ids;
  }

  private complete(): readonly PendingReason[] {
    this.idList();
    if (this.finish !== null) {
      const finish = this.finish;
      this.finish = null;
      finish();
    }
    return this.reasons;
  }

  private lookup(): Map<string, number> {
    if (this.index === null) this.index = new Map(this.idList().map((id, i) => [id, i]));
    return this.index;
  }
}
