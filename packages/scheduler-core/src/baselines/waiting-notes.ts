import { fitsFree, type FreeNow, type StartFits } from "../cycle/fits";
import type { ReasonExtras } from "../cycle/reason-drafts";
import type { CycleSession } from "../cycle/session";
import { noUsableNode } from "../node-constraints";
import type { PendingEntry } from "../order-pending";
import type { PendingReasonCode } from "../types";

/** The reasons a baseline's walk gives a job that waits (take-in-order.ts), by their index in a note. */
const CODES = [
  "CLUSTER_DRAINING",
  "ORDER",
  "CAPACITY",
  "RESERVED_FOR",
  "NODE_CONSTRAINT",
] as const satisfies readonly PendingReasonCode[];
export const WAITING = { CLUSTER_DRAINING: 0, ORDER: 1, CAPACITY: 2, RESERVED_FOR: 3, NODE_CONSTRAINT: 4 } as const;
export type WaitingCode = (typeof WAITING)[keyof typeof WAITING];

/**
 * What a job of `g` GPUs waits for once the walk's reservation is held (take-in-order.ts):
 * CLUSTER_DRAINING when the ready nodes could never hold it; RESERVED_FOR when it would fit the
 * GPUs free now (fitsFree), so only the reservation keeps it out; else ORDER when it would have fit
 * the GPUs free when the cycle began, else CAPACITY. A job's size and these facts alone give it,
 * which is what lets a run of waiting jobs be explained later (QuietRun).
 */
export function heldCode(fits: StartFits, size: number, g: number, free: FreeNow): WaitingCode {
  if (!fits.readyNodes(g)) return WAITING.CLUSTER_DRAINING;
  if (fitsFree(g, size, free)) return WAITING.RESERVED_FOR;
  return fits.freeAtStart(g) ? WAITING.ORDER : WAITING.CAPACITY;
}

/**
 * heldCode for a job of a run, and NODE_CONSTRAINT for one whose lists leave it no node that takes
 * work. A run's jobs have no free placement outside the reservation (quiet-runs.ts), so free GPUs of
 * nodes it may not use never take it there: only its lists' nodes being closed can be why.
 */
function runCode(
  fits: StartFits,
  open: readonly { name: string; gpuCount: number }[],
  size: number,
  e: PendingEntry,
  free: FreeNow,
): WaitingCode {
  const code = heldCode(fits, size, e.gpus, free);
  if (code === WAITING.CLUSTER_DRAINING || !e.constrained) return code;
  return noUsableNode(e.job, open, size) ? WAITING.NODE_CONSTRAINT : code;
}

/**
 * Jobs `from..to` of a walk that wait together while a reservation is held (take-in-order.ts): each
 * for the code its size gives (heldCode) with the free GPUs `free`, its budget's ratio in `ratios`,
 * all taken when the run was walked.
 */
export interface QuietRun {
  readonly from: number;
  readonly to: number;
  readonly size: number;
  readonly free: FreeNow;
  readonly ratios: readonly number[];
}

/**
 * Speed bookkeeping, no rule: why each job of a baseline's walk waits, noted as numbers and written
 * as reason drafts only when the result's reasons are first read.
 *
 * A baseline walks every pending job each cycle in one global order, and on an overloaded cluster
 * nearly all of them wait: a draft is eight values pushed onto eight growing arrays, and those pushes
 * and their garbage were a fifth of the priority baseline's 20 days of philly-overload (25.7 s in
 * cycles without them, 33.2 s with). The simulator never reads a reason. So the walk notes each
 * waiting job's place in the walk, its code, its budget's ratio and the largest free node then, in
 * arrays sized once, and each run of jobs that wait together (QuietRun) as one record; the drafts are
 * pushed from them, in the same order and with the same values, when the reasons are first read. The
 * notes hold only what belongs to this cycle (the walk's list and size checks, its one RESERVED_FOR
 * detail) and the jobs, never the board, which a kept scheduler's next cycle changes. The stats
 * count the allocated jobs that wait as they are noted. Off only in the test that checks it changes
 * nothing (WorkingMemory.deferReasons): each is then pushed at once.
 */
export class WaitingNotes {
  /** The nodes that take new work, copied when the walk began: a run's jobs with node lists read them (runCode). */
  private readonly open: { name: string; gpuCount: number }[];
  /**
   * Two numbers a waiting job: (its index in the walk x 8 + its code) x 2^16 + the largest free node
   * (below 2^53 for any walk), and its budget's ratio; or -1 - k and 0 for the k-th run. One array of
   * doubles, nothing for the garbage collector to trace: typed arrays sized to the walk were measured
   * slower (an ArrayBuffer a cycle each, and the collections their external memory asks for).
   */
  private readonly notes: number[] = [];
  private readonly runs: QuietRun[] = [];
  private jobs = 0;
  /** Allocated-lane jobs noted (CycleStats.blockedAllocated), added to the drafts' count at the end. */
  private allocated = 0;
  /** The one RESERVED_FOR detail of the cycle (a baseline reserves for one job). */
  private reservedExtras: ReasonExtras | null = null;

  constructor(
    private readonly s: CycleSession,
    /** The walk's jobs in order; `first` is the order position before the first of them. */
    private readonly list: readonly PendingEntry[],
    private readonly first: number,
    /** The walk's size checks (fixed for its cycle), which a run's codes read. */
    private readonly fits: StartFits,
  ) {
    const board = s.board;
    this.open = [];
    for (let n = 0; n < board.count; n++)
      if (board.schedulable[n]) this.open.push({ name: board.nodes[n]!.name, gpuCount: board.nodes[n]!.gpuCount });
  }

  /** The job at `i` in the walk, `allocated` or not, waits for `code` (`extras`: RESERVED_FOR's detail). */
  note(i: number, code: WaitingCode, ratio: number, largestFree: number, extras: ReasonExtras | null, allocated: boolean): void {
    if (!this.s.deferReasons) {
      const e = this.list[i]!;
      this.s.reasons.push(e, e.job, CODES[code], this.first + i + 1, ratio, largestFree, extras, false);
      return;
    }
    this.notes.push((i * 8 + code) * 65536 + largestFree, ratio);
    this.jobs++;
    if (extras !== null) this.reservedExtras = extras;
    if (allocated) this.allocated++;
  }

  /**
   * Every job of `run` waits, for the code its size gives; `allocated` of them are not unallocated
   * work. `extras`: the held reservation's RESERVED_FOR detail.
   */
  noteRun(run: QuietRun, extras: ReasonExtras, allocated: number): void {
    if (!this.s.deferReasons) {
      pushRun(this.s.reasons, this.list, this.first, this.fits, this.open, run, extras);
      return;
    }
    this.notes.push(-1 - this.runs.length, 0);
    this.runs.push(run);
    this.jobs += run.to - run.from;
    this.reservedExtras = extras;
    this.allocated += allocated;
  }

  /** The walk is done: the noted reasons wait for a reader. */
  finish(): void {
    const notes = this.notes;
    if (notes.length === 0) return;
    const { reasons } = this.s;
    reasons.blockedAllocated += this.allocated;
    // The closure holds these alone, never the notes' object: that holds the session, and so would
    // keep a whole cycle's garbage alive for as long as its result (scavenges took 3x as long).
    const { list, first, reservedExtras, runs, fits, open } = this;
    this.s.defer(this.jobs, () => {
      const counted = reasons.blockedAllocated;
      for (let k = 0; k < notes.length; k += 2) {
        const packed = notes[k]!;
        if (packed < 0) {
          pushRun(reasons, list, first, fits, open, runs[-1 - packed]!, reservedExtras);
          continue;
        }
        const largestFree = packed % 65536;
        const at = (packed - largestFree) / 65536;
        const i = Math.floor(at / 8);
        const code = CODES[at % 8]!;
        const e = list[i]!;
        const extras = code === "RESERVED_FOR" ? reservedExtras : null;
        reasons.push(e, e.job, code, first + i + 1, notes[k + 1]!, largestFree, extras, false);
      }
      reasons.blockedAllocated = counted; // counted as they were noted
    });
  }
}

/** Pushes the drafts of `run`, a run of `list` (the walk's jobs; `first`: the order position before them). */
function pushRun(
  reasons: CycleSession["reasons"],
  list: readonly PendingEntry[],
  first: number,
  fits: StartFits,
  open: readonly { name: string; gpuCount: number }[],
  run: QuietRun,
  reservedExtras: ReasonExtras | null,
): void {
  const { size, free, ratios } = run;
  for (let i = run.from; i < run.to; i++) {
    const e = list[i]!;
    const code = CODES[runCode(fits, open, size, e, free)];
    const extras = code === "RESERVED_FOR" ? reservedExtras : null;
    reasons.push(e, e.job, code, first + i + 1, ratios[e.budget]!, free.largest, extras, false);
  }
}
