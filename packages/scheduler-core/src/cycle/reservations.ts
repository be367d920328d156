import type { NodeBoard } from "../cluster-state";
import type { FairTree } from "../fair-tree";
import { formatWhen, plural } from "../format";
import { NodeConstraints } from "../node-constraints";
import { crossesPlannedDrain, drainSpan } from "../planned-drains";
import type { PendingEntry } from "../order-pending";
import { findEarliestStart, holderMayPreempt, holderReach, releaseFor } from "../plan-reservations";
import type { PolicyConfig, Reservation, ReserveOp } from "../types";

export interface ActiveReservation extends Reservation {
  holder: PendingEntry;
}

/**
 * R7 reservations and backfill: the first blocked jobs get a reservation from the earliest time
 * enough GPUs free up; until then only work done or interruptible by then may start on those nodes
 * (backfillOk). The node filter a placement uses comes from allowFor.
 */
/** Reservations.byStart's answers. */
const RUNNING = 0;
const INTERRUPTIBLE = 1;
const DONE = 2;

export class Reservations {
  readonly list: ActiveReservation[] = [];
  /** Per node: the index in `list` of the reservation holding it, -1 for none. */
  // A plain array: a typed array this small is allocated off the JS heap, which costs more per cycle.
  readonly reservedBy: number[];
  /** Reservation searches so far (bounded at maxReservations x 4 a cycle). */
  attempts = 0;
  /** Bumped whenever `reservedBy` changes (the nodes a search may use); read, never set, outside. */
  nodesVersion = 0;
  /**
   * Speed bookkeeping, no rule: searches that found nothing, by what they depend on (see reserve),
   * valid while the board's jobs, the ratios and the reserved nodes stay as they were.
   */
  private readonly failed = new Map<number, number>();
  /** Off only in the test that checks it changes nothing (WorkingMemory.rememberFailedReservations). */
  rememberFailures = true;
  private failedAt = [-1, -1, -1];
  /** Every node allowed: one closure for the whole cycle. */
  readonly allowAll = (): boolean => true;
  /** One closure for the whole cycle (no allocation per job): the entry it judges is `allowing`. */
  private allowing: PendingEntry | null = null;
  private readonly allowReserved = (node: number): boolean => {
    const r = this.reservedBy[node]!;
    return r < 0 || this.backfillOk(this.allowing!, this.list[r]!);
  };
  /** Node constraints: the nodes the job being placed may use (its mask), then the reservations as above. */
  private allowingMask: Uint8Array | null = null;
  private readonly allowMasked = (node: number): boolean => this.allowingMask![node] === 1 && this.allowReserved(node);
  private readonly allowMaskedOnly = (node: number): boolean => this.allowingMask![node] === 1;

  constructor(
    private readonly board: NodeBoard,
    private readonly tree: FairTree,
    private readonly policy: PolicyConfig,
    private readonly now: number,
    /** The nodes each job with node constraints may use (node-constraints.ts). */
    readonly constraints: NodeConstraints = new NodeConstraints(board),
  ) {
    this.reservedBy = new Array<number>(board.count).fill(-1);
  }

  get length(): number {
    return this.list.length;
  }

  /**
   * May `e` start on nodes reserved by `r`? The holder itself, unallocated work, a debug job on a due
   * one-node reservation, or work done or interruptible by then.
   */
  backfillOk(e: PendingEntry, r: ActiveReservation): boolean {
    if (e.lane === "UNALLOCATED" || this.holds(r, e)) return true;
    // R5/R7: a due one-node reservation whose holder has not started was kept from it by the debug
    // reserve (which yields to no one-node holder, try-start.ts): its free GPUs are the reserve's, and
    // a debug job, ahead of regular work anyway (R5), may use them. Before, neither could: debug jobs
    // waited RESERVED_FOR on the reserve's own node (philly-overload: 1,389 of the 2,969 that waited
    // over 30 s; docs/scheduling-model.md §7). Later or several-node reservations hold them back.
    if (e.lane === "DEBUG" && r.gpus <= this.board.size && r.from <= this.now) return true;
    const by = this.byStart(r, e.minRuntime, e.maxRuntime);
    if (by === DONE) return true;
    return (
      by === INTERRUPTIBLE && // and the holder may preempt it (R4)
      (r.holder.lane === "DEBUG" ||
        holderMayPreempt(this.tree, this.policy, r.holder.budget, e.budget, e.gpus, holderReach(r.gpus, this.board.size)))
    );
  }

  /**
   * What a job of these runtimes will be at r's start, all backfillOk reads of them: done (its
   * maxRuntime, null for none, ends by then), else interruptible (its minRuntime ends by then), else
   * neither. Two jobs alike in all else that give the same answer here may backfill r alike.
   */
  byStart(r: ActiveReservation, minRuntime: number, maxRuntime: number | null): number {
    if (maxRuntime !== null && this.now + maxRuntime <= r.from) return DONE;
    return this.now + minRuntime <= r.from ? INTERRUPTIBLE : RUNNING;
  }

  /**
   * Speed bookkeeping, no rule: bounds within which runtimes get byStart's answers of these ones from
   * every reservation, written into `out` for sameByStart. byStart compares now + minRuntime and
   * now + maxRuntime with each start; a sum with no start between it and this one's sum, on the same
   * side of each, compares alike: lo < sum <= hi, lo the latest start before this sum and hi the
   * earliest at or after it. A job with no maxRuntime is never done by a start: only alike with
   * another with none (out[4]).
   */
  byStartBounds(minRuntime: number, maxRuntime: number | null, out: number[]): void {
    const a = this.now + minRuntime;
    const b = maxRuntime === null ? 0 : this.now + maxRuntime;
    let loA = -Infinity;
    let hiA = Infinity;
    let loB = -Infinity;
    let hiB = Infinity;
    for (let i = 0; i < this.list.length; i++) {
      const from = this.list[i]!.from;
      if (from < a) loA = Math.max(loA, from);
      else hiA = Math.min(hiA, from);
      if (from < b) loB = Math.max(loB, from);
      else hiB = Math.min(hiB, from);
    }
    out[0] = loA;
    out[1] = hiA;
    out[2] = loB;
    out[3] = hiB;
    out[4] = maxRuntime === null ? 1 : 0;
  }

  /** Whether byStart answers these runtimes (-1 for no maxRuntime) as those `bounds` were made for, for every reservation. */
  sameByStart(bounds: readonly number[], minRuntime: number, maxRuntime: number): boolean {
    const a = this.now + minRuntime;
    if (!(a > bounds[0]! && a <= bounds[1]!)) return false;
    if (maxRuntime < 0) return bounds[4] === 1;
    const b = this.now + maxRuntime;
    return bounds[4] === 0 && b > bounds[2]! && b <= bounds[3]!;
  }

  /**
   * Is `e` the job `r` holds nodes for? Its id, compared only when its GPUs and budget are the
   * holder's (a job's entries all agree on them): an id is a string elsewhere in memory, and a walk
   * over a blocked backlog asked this of every job.
   */
  holds(r: ActiveReservation, e: PendingEntry): boolean {
    return r.holder === e || this.holdsJob(r, e.gpus, e.budget, e.id);
  }

  /** Is the job of these GPUs, budget and id the one `r` holds nodes for? */
  holdsJob(r: ActiveReservation, gpus: number, budget: number, id: string): boolean {
    const h = r.holder;
    return h.gpus === gpus && h.budget === budget && h.id === id;
  }

  /** The node filter for placing `e`: valid until the next call. */
  allowFor(e: PendingEntry): (node: number) => boolean {
    // A job with a node constraint gets a filter of its own (never allowAll: search-memo.ts learns
    // from allowAll's failures about every job).
    const mask = e.constrained ? this.constraints.maskOf(e) : null;
    this.allowing = e;
    this.allowingMask = mask;
    if (mask !== null) return this.list.length === 0 ? this.allowMaskedOnly : this.allowMasked;
    if (this.list.length === 0) return this.allowAll;
    return this.allowReserved;
  }

  /** The filter allowFor gives a job with no node constraint: the reservations' only (reasons). */
  allowForAnyNode(e: PendingEntry): (node: number) => boolean {
    if (this.list.length === 0) return this.allowAll;
    this.allowing = e;
    return this.allowReserved;
  }

  /** Bit i: `e` may use reservation i (the first 20), for the failed-search key. */
  backfillMask(e: PendingEntry): number {
    let mask = 0;
    for (let i = 0; i < this.list.length && i < 20; i++) if (this.backfillOk(e, this.list[i]!)) mask |= 1 << i;
    return mask;
  }

  /** The first reservation `e` may not backfill (the one a RESERVED_FOR reason names), else the first. */
  blocking(e: PendingEntry): ActiveReservation {
    for (const r of this.list) if (!this.backfillOk(e, r)) return r;
    return this.list[0]!;
  }

  add(r: ActiveReservation, nodes: readonly number[]): void {
    this.nodesVersion++;
    for (const n of nodes) this.reservedBy[n] = this.list.length;
    this.list.push(r);
  }

  /** Removes the latest reservation (its holder started after all). */
  dropLast(): void {
    const r = this.list.pop();
    if (!r) return;
    this.nodesVersion++;
    for (let n = 0; n < this.reservedBy.length; n++) if (this.reservedBy[n] === this.list.length) this.reservedBy[n] = -1;
  }

  clear(): void {
    this.nodesVersion++;
    this.list.length = 0;
    this.reservedBy.fill(-1);
  }

  /** Room for one more search this cycle (non-unallocated lanes only). */
  mayReserve(): boolean {
    return this.list.length < this.policy.maxReservations && this.attempts < this.policy.maxReservations * 4;
  }

  /** Reserves the earliest nodes for a blocked job; the RESERVE op, or null when nothing frees up in time. */
  reserve(e: PendingEntry): { reservation: ActiveReservation; op: ReserveOp } | null {
    this.attempts++;
    const board = this.board;
    const job = e.job;
    // A constrained job's search sees fewer nodes: its failure says nothing of other jobs'.
    const mask = e.constrained ? this.constraints.maskOf(e) : null;
    // With a planned drain ahead, whether a node may be reserved depends on the job's span.
    const span = drainSpan(e.lane, job);
    const planned = span > 0 && this.constraints.earliestPlan < Infinity;
    const key = this.rememberFailures && mask === null && !planned ? this.failureKey(e) : null;
    if (key !== null && job.gpus >= (this.failed.get(key) ?? Infinity)) return null;
    const release = releaseFor(this.tree, this.policy, this.now, e.lane, e.budget, holderReach(job.gpus, board.size));
    // R8's plans: a reservation never uses a node whose planned drain its start + span would cross. The
    // mask rules out those crossed from now; a later start may cross more, so those are left out and
    // the search made again (each time with fewer nodes: at most once per node with a plan).
    const crossed = new Set<number>();
    let choice: ReturnType<typeof findEarliestStart>;
    for (;;) {
      choice = findEarliestStart(
        board,
        job.gpus,
        release,
        (node) => this.reservedBy[node]! < 0 && (mask === null || mask[node] === 1) && !crossed.has(node),
      );
      if (!choice || !planned) break;
      const from = choice.from;
      const more = choice.nodes.filter((n) => crossesPlannedDrain(board.nodes[n]!, from, span));
      if (more.length === 0) break;
      for (const n of more) crossed.add(n);
    }
    if (!choice) {
      if (key !== null) this.failed.set(key, Math.min(job.gpus, this.failed.get(key) ?? Infinity));
      return null;
    }
    const r: ActiveReservation = {
      jobId: job.id,
      gpus: job.gpus,
      nodeIds: choice.nodes.map((n) => board.nodes[n]!.id),
      from: choice.from,
      holder: e,
    };
    this.add(r, choice.nodes);
    const op: ReserveOp = {
      op: "RESERVE",
      jobId: job.id,
      nodeIds: r.nodeIds,
      from: r.from,
      sentence: `Reserved ${plural(r.nodeIds.length, "node")} (${choice.nodes
        .map((n) => board.nodes[n]!.name)
        .join(
          ", ",
        )}) for job ${job.id}, which can start there ${formatWhen(r.from, this.now)}; until then only jobs that will have finished or become interruptible by then start there.`,
    };
    return { reservation: r, op };
  }

  /**
   * The key under which a search for `e` that finds nothing says that every later search with the
   * same key and as many GPUs or more finds nothing either, or null when it says nothing. A search
   * reads the job only through its GPUs, whether it is a debug job (R5: it may preempt any
   * interruptible work), else its budget (R4 through releaseFor), and whether it takes whole nodes;
   * and the state only through the jobs on the board, the ratios and the unreserved nodes, whose
   * versions are checked here (a change forgets every failure). With more GPUs it can only need a
   * later release on fewer nodes: a job of whole nodes needs every GPU of `gpus / size` nodes, which
   * is never earlier than the size-th release of one node.
   */
  private failureKey(e: PendingEntry): number | null {
    const board = this.board;
    const g = e.job.gpus;
    if (!Number.isInteger(g) || g <= 0 || board.size === 0 || (g > board.size && g % board.size !== 0)) return null;
    const at = this.failedAt;
    if (at[0] !== board.jobsVersion || at[1] !== this.tree.version || at[2] !== this.nodesVersion) {
      this.failed.clear();
      this.failedAt = [board.jobsVersion, this.tree.version, this.nodesVersion];
    }
    const who = e.lane === "DEBUG" ? this.tree.size : e.budget;
    return who * 2 + (g >= board.size ? 1 : 0);
  }

  /** The cycle's reservations as the result carries them. */
  toResult(): Reservation[] {
    return this.list.map(({ jobId, gpus, nodeIds, from }) => ({ jobId, gpus, nodeIds, from }));
  }
}
