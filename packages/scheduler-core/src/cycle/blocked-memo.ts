import { probeEntry, type EntryColumns } from "../entry-columns";
import type { PendingEntry } from "../order-pending";
import type { JobLimits } from "./job-rules";
import type { ReasonExtras } from "./reason-drafts";
import type { BlockedCode } from "./reason-precedence";
import type { CycleSession } from "./session";

/** What a job that was tried and did not start is told (lanes.ts). */
export interface BlockedOutcome {
  code: BlockedCode;
  extras: ReasonExtras | null;
  estimate: boolean;
}

/**
 * Speed bookkeeping of one lane, kept out of the rules: the outcome of a blocked job, shared by the
 * later jobs of the same kind while nothing has moved. A backlog of thousands on a full cluster is
 * mostly jobs whose tries change nothing; each of those then costs a lookup instead of its placement,
 * preemption and reason checks.
 *
 * Why it is exact. A blocked job's tries read the board, the ratios, the reservations and the
 * search bookkeeping, and the job only through its kind: budget, lane, GPUs, which reservations it
 * may backfill (its min and max runtime against each one's start, R7), and for the debug lane its
 * user (R5 cap). Everything they read changes only with a
 * plan op (start, preemption, reservation), a preemption search or a reservation attempt, so those
 * three counters are the state's signature. An outcome is kept only when its job's own tries left
 * the signature as they found it, and used only while the signature is still that one: the next job
 * of the kind starts from the same state and would take the same path to the same outcome. Jobs that
 * a rule names by id are never shared: a reservation's holder and a debug job over its user's cap.
 */
export class BlockedMemo {
  private readonly outcomes = new Map<number | string, BlockedOutcome>();
  /** The last kind looked up and its outcome: jobs of a kind come in runs (a budget's queue). */
  private lastKind: number | string | null = null;
  private lastOutcome: BlockedOutcome | undefined = undefined;
  private plan = -1;
  private searches = -1;
  private attempts = -1;
  /** The entry getAt reads a job's columns into. */
  private readonly probe = probeEntry();
  /**
   * kindRunEnd's answers of byStart for its first entry, one per reservation (only the first
   * list.length are read): one array for the lane, not one a run (millions of runs on philly-overload).
   */
  private readonly atStartK: number[] = [];
  /** kindRunEnd's bounds of the runtimes byStart answers as its first entry's (Reservations.byStartBounds). */
  private readonly boundsK: number[] = [0, 0, 0, 0, 0];

  constructor(private readonly s: CycleSession) {}

  /**
   * The kind of a job whose outcome may be shared, or null when it may not: a number (budget, GPUs,
   * reservation mask) for the regular lanes, a string with the user for the debug lane.
   */
  kindOf(e: PendingEntry): number | string | null {
    const s = this.s;
    if (s.isOverDebugCap(e)) return null;
    // Node constraints (node-constraints.ts): a constrained job's outcome is its own, never shared.
    if (e.constrained) return null;
    // Its min and max runtime matter only through which reservations it may backfill (R7).
    const reservations = s.reservations;
    const list = reservations.list;
    const g = e.gpus;
    if (list.length > 24 || !(g >= 0 && g < 4096 && Number.isInteger(g))) return null;
    let mask = 0;
    for (let i = 0; i < list.length; i++) {
      const r = list[i]!;
      if (reservations.holds(r, e)) return null;
      if (reservations.backfillOk(e, r)) mask |= 1 << i;
    }
    // Below 2^53: mask < 2^24, g < 2^12, budget < tree size.
    const kind = (mask * 4096 + g) * s.tree.size + e.budget;
    return e.lane === "DEBUG" ? `${kind}|${e.job.userId}` : kind;
  }

  /**
   * The shared outcome of the kind of entry k of `cols` (a job of the allocated or unallocated lane,
   * whose kind reads no more than its columns), if one was kept in the state as it stands.
   */
  getAt(cols: EntryColumns, k: number): BlockedOutcome | undefined {
    if (this.outcomes.size === 0 || !this.unchanged()) return undefined;
    return this.lookup(this.kindOf(cols.readInto(k, this.probe)));
  }

  /**
   * Whether entry j of `cols` is of the kind of entry k, a job whose kind is not null (getAt found it
   * an outcome), read from their columns without building j's kind: the same GPUs, lane and budget,
   * not a job a rule names by id, and for each reservation the same answer from byStart, which is all
   * that kindOf reads of their runtimes (Reservations.backfillOk). Then kindOf gives them one kind.
   */
  sameKind(cols: EntryColumns, j: number, k: number): boolean {
    const g = cols.gpus[j]!;
    const budget = cols.budget[j]!;
    if (g !== cols.gpus[k] || budget !== cols.budget[k] || cols.lane[j] !== cols.lane[k]) return false;
    const s = this.s;
    const id = cols.ids[j]!;
    if (s.isOverDebugCapJob(g, budget, id)) return false;
    // Node constraints: never of another job's kind (kindOf).
    if (cols.constrained[j] || cols.constrained[k]) return false;
    const reservations = s.reservations;
    const list = reservations.list;
    if (list.length === 0) return true;
    const minJ = cols.minRuntime[j]!;
    const maxJ = cols.maxRuntime[j]!;
    const minK = cols.minRuntime[k]!;
    const maxK = cols.maxRuntime[k]!;
    const alike = minJ === minK && maxJ === maxK;
    for (let i = 0; i < list.length; i++) {
      const r = list[i]!;
      if (reservations.holdsJob(r, g, budget, id)) return false;
      if (
        !alike &&
        reservations.byStart(r, minJ, maxJ < 0 ? null : maxJ) !== reservations.byStart(r, minK, maxK < 0 ? null : maxK)
      )
        return false;
    }
    return true;
  }

  /**
   * The first entry after entry k of `cols` (a job whose kind is not null) and before `end` that is
   * not of k's kind (sameKind) or that a limit may hold (JobLimits.mayBlock): the entries between
   * share k's outcome while nothing moves. The same answer as asking sameKind of each entry in turn,
   * with what stays the same along the run read once: the walk over a blocked backlog asks this of
   * most of its jobs (test/same-kind.test.ts compares the two).
   */
  kindRunEnd(cols: EntryColumns, k: number, end: number, limits: JobLimits): number {
    const s = this.s;
    const g = cols.gpus[k]!;
    const budget = cols.budget[k]!;
    const lane = cols.lane[k]!;
    // Every entry of the run is of k's budget: a limit on it may hold each one.
    if (limits.mayBlock(false, budget)) return k + 1;
    const overCap = s.mayBeOverDebugCap(g, budget);
    const reservations = s.reservations;
    const list = reservations.list;
    const minK = cols.minRuntime[k]!;
    const maxK = cols.maxRuntime[k]!;
    // The reservations whose holder has k's GPUs and budget (one of the run may be it, by id), and
    // what byStart says of k's runtimes for each reservation.
    let holderIds: string[] | null = null;
    const atStartK = this.atStartK;
    for (let i = 0; i < list.length; i++) {
      const r = list[i]!;
      if (r.holder.gpus === g && r.holder.budget === budget) (holderIds ??= []).push(r.holder.id);
      atStartK[i] = reservations.byStart(r, minK, maxK < 0 ? null : maxK);
    }
    // Runtimes within these bounds get k's answers without asking each reservation (a backlog's
    // minRuntimes differ job by job, philly-overload's are their durations up to 2 h).
    const boundsK = this.boundsK;
    reservations.byStartBounds(minK, maxK < 0 ? null : maxK, boundsK);
    const { gpus: gpusOf, budget: budgetOf, lane: laneOf, capped, constrained, ids, minRuntime, maxRuntime } = cols;
    // Node constraints: a constrained job is a kind of its own (kindOf), so it ends a run.
    if (constrained[k]) return k + 1;
    let j = k + 1;
    for (; j < end; j++) {
      if (capped[j] || gpusOf[j] !== g || budgetOf[j] !== budget || laneOf[j] !== lane) break;
      if (constrained[j]) break;
      if (overCap && s.overDebugCap.has(ids[j]!)) break;
      if (holderIds !== null && holderIds.includes(ids[j]!)) break;
      const minJ = minRuntime[j]!;
      const maxJ = maxRuntime[j]!;
      if (reservations.sameByStart(boundsK, minJ, maxJ)) continue;
      let alike = true;
      for (let i = 0; i < list.length && alike; i++)
        alike = reservations.byStart(list[i]!, minJ, maxJ < 0 ? null : maxJ) === atStartK[i];
      if (!alike) break;
    }
    return j;
  }

  /** The shared outcome of this job's kind, if one was kept in the state as it stands. */
  get(e: PendingEntry): BlockedOutcome | undefined {
    if (this.outcomes.size === 0 || !this.unchanged()) return undefined;
    return this.lookup(this.kindOf(e));
  }

  /** Marks the state before a job's tries (see keep). */
  mark(): void {
    if (this.unchanged()) return;
    this.outcomes.clear();
    this.lastKind = null;
    this.plan = this.s.plan.length;
    this.searches = this.s.preemptionSearches;
    this.attempts = this.s.reservations.attempts;
  }

  /**
   * Keeps a blocked job's outcome for its kind when its tries changed nothing since mark() (then the
   * reservations, the debug cap moves and everything its kind reads are as they were before them).
   */
  keep(e: PendingEntry, outcome: BlockedOutcome): void {
    if (!this.unchanged()) return;
    const kind = this.kindOf(e);
    if (kind !== null) {
      this.outcomes.set(kind, outcome);
      this.lastKind = null;
    }
  }

  private lookup(kind: number | string | null): BlockedOutcome | undefined {
    if (kind === null) return undefined;
    if (kind !== this.lastKind) {
      this.lastKind = kind;
      this.lastOutcome = this.outcomes.get(kind);
    }
    return this.lastOutcome;
  }

  private unchanged(): boolean {
    const s = this.s;
    return s.plan.length === this.plan && s.preemptionSearches === this.searches && s.reservations.attempts === this.attempts;
  }
}
