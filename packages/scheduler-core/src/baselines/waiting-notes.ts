import type { ReasonExtras } from "../cycle/reason-drafts";
import type { CycleSession } from "../cycle/session";
import type { PendingEntry } from "../order-pending";
import type { PendingReasonCode } from "../types";

/** The reasons a baseline's walk gives a job that waits (take-in-order.ts), by their index in a note. */
const CODES = ["CLUSTER_DRAINING", "ORDER", "CAPACITY", "RESERVED_FOR"] as const satisfies readonly PendingReasonCode[];
export const WAITING = { CLUSTER_DRAINING: 0, ORDER: 1, CAPACITY: 2, RESERVED_FOR: 3 } as const;
export type WaitingCode = (typeof WAITING)[keyof typeof WAITING];

/**
 * Speed bookkeeping, no rule: why each job of a baseline's walk waits, noted as numbers and written
 * as reason drafts only when the result's reasons are first read.
 *
 * A baseline walks every pending job each cycle in one global order, and on an overloaded cluster
 * nearly all of them wait: a draft is eight values pushed onto eight growing arrays, and those pushes
 * and their garbage were a fifth of the priority baseline's 20 days of philly-overload (25.7 s in
 * cycles without them, 33.2 s with). The simulator never reads a reason. So the walk notes each
 * waiting job's place in the walk, its code, its budget's ratio and the largest free node then, in
 * arrays sized once; the drafts are pushed from them, in the same order and with the same values, when
 * the reasons are first read. The notes hold only what belongs to this cycle (the walk's list, its one
 * RESERVED_FOR detail) and the jobs, never the board, which a kept scheduler's next cycle changes.
 * The stats count the allocated jobs that wait as they are noted. Off only in the test that checks it
 * changes nothing (WorkingMemory.deferReasons): each is then pushed at once.
 */
export class WaitingNotes {
  /**
   * Two numbers a waiting job: (its index in the walk x 4 + its code) x 2^16 + the largest free node
   * (below 2^53 for any walk), and its budget's ratio. One array of doubles, nothing for the garbage
   * collector to trace: typed arrays sized to the walk were measured slower (an ArrayBuffer a cycle
   * each, and the collections their external memory asks for).
   */
  private readonly notes: number[] = [];
  /** Allocated-lane jobs noted (CycleStats.blockedAllocated), added to the drafts' count at the end. */
  private allocated = 0;
  /** The one RESERVED_FOR detail of the cycle (a baseline reserves for one job). */
  private reservedExtras: ReasonExtras | null = null;
  /** The closed tail of the walk (closeTail), or null. */
  private tail: {
    from: number;
    codeOf: ReadonlyMap<number, WaitingCode>;
    ratios: readonly number[];
    largestFree: number;
  } | null = null;

  constructor(
    private readonly s: CycleSession,
    /** The walk's jobs in order; `first` is the order position before the first of them. */
    private readonly list: readonly PendingEntry[],
    private readonly first: number,
  ) {}

  /** The job at `i` in the walk, `allocated` or not, waits for `code` (`extras`: RESERVED_FOR's detail). */
  note(i: number, code: WaitingCode, ratio: number, largestFree: number, extras: ReasonExtras | null, allocated: boolean): void {
    if (!this.s.deferReasons) {
      const e = this.list[i]!;
      this.s.reasons.push(e, e.job, CODES[code], this.first + i + 1, ratio, largestFree, extras, false);
      return;
    }
    this.notes.push((i * 4 + code) * 65536 + largestFree, ratio);
    if (extras !== null) this.reservedExtras = extras;
    if (allocated) this.allocated++;
  }

  /**
   * Every job of the walk from `from` on waits (closed-tail.ts): for the code its size gets in
   * `codeOf`, its budget's ratio in `ratios`, with `largestFree` free on one node; `allocated` of them
   * are not unallocated work. `extras`: RESERVED_FOR's detail.
   */
  closeTail(
    from: number,
    codeOf: ReadonlyMap<number, WaitingCode>,
    ratios: readonly number[],
    largestFree: number,
    extras: ReasonExtras | null,
    allocated: number,
  ): void {
    this.tail = { from, codeOf, ratios, largestFree };
    if (extras !== null) this.reservedExtras = extras;
    this.allocated += allocated;
  }

  /** The walk is done: the noted reasons wait for a reader. */
  finish(): void {
    const notes = this.notes;
    const tail = this.tail;
    const tailCount = tail === null ? 0 : this.list.length - tail.from;
    if (notes.length === 0 && tailCount === 0) return;
    const { reasons } = this.s;
    reasons.blockedAllocated += this.allocated;
    const { list, first, reservedExtras } = this;
    this.s.defer(notes.length / 2 + tailCount, () => {
      const counted = reasons.blockedAllocated;
      for (let k = 0; k < notes.length; k += 2) {
        const packed = notes[k]!;
        const largestFree = packed % 65536;
        const at = (packed - largestFree) / 65536;
        const i = Math.floor(at / 4);
        const code = CODES[at % 4]!;
        const e = list[i]!;
        const extras = code === "RESERVED_FOR" ? reservedExtras : null;
        reasons.push(e, e.job, code, first + i + 1, notes[k + 1]!, largestFree, extras, false);
      }
      if (tail !== null) {
        for (let i = tail.from; i < list.length; i++) {
          const e = list[i]!;
          const code = CODES[tail.codeOf.get(e.gpus)!]!;
          const extras = code === "RESERVED_FOR" ? reservedExtras : null;
          reasons.push(e, e.job, code, first + i + 1, tail.ratios[e.budget]!, tail.largestFree, extras, false);
        }
      }
      reasons.blockedAllocated = counted; // counted as they were noted
    });
  }
}
