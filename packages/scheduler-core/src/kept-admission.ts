import type { ClusterShape } from "./contract";
import type { FairTree, TreeShape } from "./fair-tree";
import { EntryColumns } from "./entry-columns";
import { KeptQueues } from "./kept-queues";
import { compareEntries, isSorted, queueLowerBound, type PendingEntry } from "./order-pending";
import type { BacklogChanges, PendingBacklog } from "./pending-backlog";
import type { ClusterSnapshot, PendingJob, PolicyConfig } from "./types";

/** A job admitted by an earlier cycle: its entry, and what admission's answer depended on besides the job. */
export interface AdmittedRecord {
  entry: PendingEntry;
  /** Its budget had entitlement (its lane depends on it, R3). */
  ent: boolean;
  /** The cycle that last admitted it, kept for last cycle's reservation holders only (holderNow). */
  seen: number;
}

/**
 * Admission kept between the cycles of a scheduler (createScheduler): a pending job that was
 * admitted keeps its entry (budget index, lane, order keys) while the job object is the same and so
 * is what it was checked against: the tree's shape, the cluster's shape, the policy's limits and the
 * budget's entitlement. A held job, a job with dependencies or an invalid one is admitted afresh every
 * cycle (its answer can change with time or with other jobs). Speed only: an overloaded replay's
 * backlog of 10,000 jobs was otherwise looked up, validated and given a new entry every cycle, for the
 * same answer (philly-overload, 60 days: a quarter of the replay's time). Kept only for a caller that
 * passes the same pending array again, as the kept board is (working-state.ts); the stateless
 * runCycle never keeps one.
 *
 * A kept job is frozen, as a kept running job is (kept-working-state.ts): an edit in place throws
 * where it is made (TypeError in strict code) and changes nothing, and a job that changes is a new
 * object. So a job found again is the job admission read, and neither it nor its record is read
 * again: a cycle costs a pointer comparison per job, plus one look at each record when a budget's
 * entitlement appeared or vanished since the last cycle (its jobs change lane).
 *
 * Jobs are matched by object against last cycle's array in order: a caller that adds and removes a few
 * jobs a cycle (the simulator) costs a comparison per job. A lookup table of last cycle's jobs is
 * built only when two jobs in a row are not found within a few places of where the match stands
 * (keyed lookups for every job cost as much as the admission they save: a WeakMap by job was
 * measured so).
 *
 * A caller that keeps its pending jobs in a PendingBacklog (the simulator) says what it added and
 * removed: admission then takes in only those (binary searches in the kept entries, which are in
 * queue order) and admits afresh the new jobs and the ones never kept, so a cycle costs a copy of
 * the kept entries (one memcpy) instead of a comparison per job. The arrays are compared instead on
 * a cycle whose journal does not reach back to the last one, or when a budget's entitlement moved.
 */
export class KeptAdmission {
  /** Last cycle's pending jobs (a copy: the caller changes its array in place) and their kept entries. */
  private lastJobs: readonly PendingJob[] = [];
  private lastEntries: (PendingEntry | null)[] = [];
  /** This cycle's kept entries (their records: `entry.admitted`), by index in its pending array. */
  private entries: (PendingEntry | null)[] = [];
  /** Which budgets (tree indexes) had entitlement last cycle, and whether one changed since. */
  private entitled: boolean[] = [];
  private entitlementMoved = true;
  /** Index of each of last cycle's jobs, built when the arrays part by more than LOOKAHEAD places. */
  private lastIndex: Map<PendingJob, number> | null = null;
  /** The next of last cycle's jobs expected, and the index of the job being admitted now. */
  private cursor = 0;
  /** Index in `entries` of the job being admitted now. */
  private at = -1;
  /** Jobs in a row not found near the cursor. */
  private misses = 0;
  /** Bumped by every cycle that admits through it. */
  private cycle = 0;
  /** Keep what this cycle admits (the caller passed the same pending array as last cycle). */
  private keeping = false;
  private lastPending: readonly PendingJob[] | null = null;
  /** Which of last cycle's jobs this cycle found again (by index), and the entries this cycle made anew. */
  private matched = new Uint8Array(0);
  private added: PendingEntry[] = [];
  /** Last cycle's new entries that were not kept (dependencies): gone from this cycle's queues. */
  private lastLoose: PendingEntry[] = [];
  /** What this cycle's entries lost and gained against last cycle's, or null when not known (finish). */
  private delta: { removed: PendingEntry[]; added: PendingEntry[] } | null = null;
  /** The fair-tree queues kept between cycles (kept-queues.ts). */
  private readonly queues = new KeptQueues();
  /** The holders of the reservations the last cycle made, by job id (carried-reservations.ts), and their entries. */
  private holders = new Map<string, AdmittedRecord>();
  private holderEntries: PendingEntry[] = [];
  /**
   * With a backlog: the kept entries in queue order, and the jobs of last cycle that were not kept
   * (held, invalid, with dependencies: admitted afresh every cycle). Kept up to date by every cycle
   * that has a backlog, walked or not.
   */
  private keptSorted: PendingEntry[] = [];
  /**
   * What a baseline's walk reads of each of keptSorted's entries, in the same order (entry-columns.ts):
   * made when first asked for, then moved with every change (fairshare never asks).
   */
  private keptColumns: EntryColumns | null = null;
  private loose: PendingJob[] = [];
  private nextLoose: PendingJob[] = [];
  /** The backlog last read and its version then, and this cycle's changes from it (null: compare the arrays). */
  private backlog: PendingBacklog | null = null;
  private backlogVersion = -1;
  private changes: BacklogChanges | null = null;
  /** Kept entries this cycle's changes removed. */
  private removedNow: PendingEntry[] = [];
  /** lastJobs and lastEntries describe last cycle's array (not after a cycle that read the journal). */
  private aligned = true;
  /** Cycles admitted from a backlog's changes (for tests and benches: it decides nothing). */
  journaled = 0;

  private constructor(
    private readonly shape: TreeShape,
    private readonly policy: PolicyConfig,
    private readonly nodeSize: number,
    private readonly totalGpus: number,
    private readonly maxMinRuntime: number | null | undefined,
  ) {}

  /** The kept admission that still holds for this cycle, else a new, empty one. */
  static forCycle(
    kept: KeptAdmission | null,
    tree: FairTree,
    shape: ClusterShape,
    policy: PolicyConfig,
    snapshot: ClusterSnapshot,
  ): KeptAdmission {
    const maxMinRuntime = snapshot.cluster.maxMinRuntime;
    const next =
      kept !== null &&
      kept.shape === tree.shape &&
      kept.policy === policy &&
      kept.nodeSize === shape.nodeSize &&
      kept.totalGpus === shape.totalGpus &&
      kept.maxMinRuntime === maxMinRuntime
        ? kept
        : new KeptAdmission(tree.shape, policy, shape.nodeSize, shape.totalGpus, maxMinRuntime);
    if (kept !== null && next !== kept) next.lastPending = kept.lastPending;
    next.keeping = next.lastPending === snapshot.pending;
    next.lastPending = snapshot.pending;
    next.cycle++;
    next.cursor = 0;
    next.at = -1;
    next.misses = 0;
    next.lastIndex = null;
    next.entries = [];
    next.added = [];
    next.delta = null;
    next.entitlementMoved = next.entitlementChanged(tree);
    const backlog = snapshot.backlog?.items === snapshot.pending ? snapshot.backlog : null;
    next.changes =
      next.keeping && backlog !== null && backlog === next.backlog && !next.entitlementMoved
        ? backlog.changesSince(next.backlogVersion)
        : null;
    next.backlog = backlog;
    next.removedNow = [];
    next.nextLoose = [];
    if (next.changes === null && !next.aligned) next.realign();
    next.matched = next.keeping && next.changes === null ? new Uint8Array(next.lastJobs.length) : new Uint8Array(0);
    return next;
  }

  /** Last cycle's arrays again, from the kept entries and loose jobs, for a cycle that compares them. */
  private realign(): void {
    this.lastJobs = this.keptSorted.map((e) => e.job).concat(this.loose);
    this.lastEntries = (this.keptSorted as (PendingEntry | null)[]).concat(this.loose.map(() => null));
    this.aligned = true;
  }

  /**
   * With the backlog's changes: takes the removed jobs' entries out and returns the jobs to admit
   * afresh (the new ones, and last cycle's jobs that were not kept), after which `keptEntries` gives
   * the kept ones. null: compare the arrays instead (entryOf for every job).
   */
  journalJobs(): PendingJob[] | null {
    const changes = this.changes;
    if (changes === null) return null;
    const fresh = new Set<PendingJob>();
    let looseLeft: Set<PendingJob> | null = null;
    for (let i = 0; i < changes.jobs.length; i++) {
      const job = changes.jobs[i]!;
      if (changes.added[i]) {
        fresh.add(job);
        continue;
      }
      if (fresh.delete(job) || this.removeKept(job)) continue;
      looseLeft ??= new Set(this.loose);
      if (!looseLeft.delete(job)) {
        // Out of step with the backlog (a job removed that this admission never saw): start afresh.
        this.forgetAll();
        return null;
      }
    }
    return [...fresh, ...(looseLeft ?? this.loose)];
  }

  /** Takes the kept entry of `job` out of the queue-ordered entries; false if it has none. */
  private removeKept(job: PendingJob): boolean {
    const kept = this.keptSorted;
    const lo = queueLowerBound(kept, job);
    const entry = kept[lo];
    if (entry === undefined || entry.job !== job) return false;
    kept.splice(lo, 1);
    this.keptColumns?.remove(lo);
    this.removedNow.push(entry);
    return true;
  }

  /** Nothing kept: this cycle (or the next, after a cycle not kept) admits every job afresh and builds the queues anew. */
  private forgetAll(): void {
    this.changes = null;
    this.lastJobs = [];
    this.lastEntries = [];
    this.lastLoose = [];
    this.keptSorted = [];
    this.keptColumns = null;
    this.loose = [];
    this.removedNow = [];
    this.aligned = true;
    this.matched = new Uint8Array(0);
    this.queues.clear();
  }

  /**
   * With the backlog's changes: the kept entries, in queue order; not a copy (one of up to 20,000
   * entries a cycle was 2% of the 60-day replay's CPU), and changed in place by the next cycle's
   * admission, so what outlives the cycle copies them.
   */
  keptEntries(): readonly PendingEntry[] {
    return this.keptSorted;
  }

  /** With the backlog's changes: the columns of keptEntries' entries, valid until the next cycle's admission. */
  columns(): EntryColumns {
    return (this.keptColumns ??= EntryColumns.of(this.keptSorted));
  }

  /** With the backlog's changes: a job admitted afresh that is not kept is admitted afresh next cycle too. */
  stayLoose(job: PendingJob): void {
    if (this.changes !== null) this.nextLoose.push(job);
  }

  /** Notes which budgets have entitlement now; true when one has gained or lost it since last cycle. */
  private entitlementChanged(tree: FairTree): boolean {
    let moved = this.entitled.length !== tree.size;
    if (moved) this.entitled = new Array<boolean>(tree.size).fill(false);
    for (let i = 0; i < tree.size; i++) {
      const ent = tree.hasEntitlement(i);
      if (this.entitled[i] !== ent) {
        this.entitled[i] = ent;
        moved = true;
      }
    }
    return moved;
  }

  /**
   * The entry the next job of the pending array was admitted with, if nothing admission read has
   * changed since; called once for every job, in the array's order.
   */
  entryOf(job: PendingJob, tree: FairTree): PendingEntry | null {
    if (!this.keeping) return null;
    const j = this.lastIndexOf(job);
    const entry = j < 0 || this.matched[j] === 1 ? null : this.lastEntries[j]!; // a job passed twice: the second is new
    // The same object, frozen since it was kept: the fields admission read are as they were.
    if (entry === null || (this.entitlementMoved && tree.hasEntitlement(entry.budget) !== entry.admitted!.ent)) {
      this.at = this.entries.length;
      this.entries.push(null);
      return null;
    }
    const holders = this.holderEntries;
    for (let h = 0; h < holders.length; h++) if (holders[h] === entry) entry.admitted!.seen = this.cycle;
    this.matched[j] = 1;
    this.entries.push(entry);
    return entry;
  }

  /**
   * Keeps the entry just made for the job entryOf was last asked about (its budget's entitlement
   * `ent`), and freezes the job: from now on the object found again is the job admission read.
   */
  keep(job: PendingJob, entry: PendingEntry, ent: boolean): void {
    if (!this.keeping) return;
    const a: AdmittedRecord = { entry, ent, seen: this.cycle };
    if (this.changes !== null) this.insertKept(entry);
    else this.entries[this.at] = entry;
    entry.admitted = a;
    Object.freeze(job);
  }

  private insertKept(entry: PendingEntry): void {
    const kept = this.keptSorted;
    // New jobs are mostly the latest submitted: the end of their priority's run.
    const at = kept.length > 0 && compareEntries(kept[kept.length - 1]!, entry) < 0 ? kept.length : queueLowerBound(kept, entry);
    kept.splice(at, 0, entry);
    this.keptColumns?.insert(at, entry);
  }

  /** An entry this cycle's admission made (not found kept): new in this cycle's queues. */
  noteNew(entry: PendingEntry): void {
    if (this.keeping) this.added.push(entry);
  }

  /**
   * This cycle's fair-tree queues over `entries` (every entry admission gave): last cycle's brought up
   * to date (kept-queues.ts), or null for the caller to build them (a scheduler not kept).
   */
  queuesFor(entries: readonly PendingEntry[], treeSize: number): PendingEntry[][][] | null {
    if (!this.keeping) return null;
    return this.queues.forCycle(this.cycle, entries, treeSize, this.delta);
  }

  /** What the walks read of a queue's entries, kept with the queue (kept-queues.ts). */
  columnsOf(queue: readonly PendingEntry[]): EntryColumns {
    return this.queues.columnsOf(queue);
  }

  /** Admission is done: this cycle's jobs and records are the next cycle's to match. */
  finish(pending: readonly PendingJob[]): void {
    if (!this.keeping) {
      this.forgetAll();
      return;
    }
    if (this.backlog !== null) this.backlogVersion = this.backlog.version;
    if (this.changes !== null) {
      this.journaled++;
      const removed = this.lastLoose;
      for (const e of this.removedNow) removed.push(e);
      this.delta = { removed, added: this.added };
      this.lastLoose = this.added.filter((e) => e.admitted === null);
      this.loose = this.nextLoose;
      this.aligned = false;
      for (const a of this.holders.values()) if (!this.removedNow.includes(a.entry)) a.seen = this.cycle;
      return;
    }
    // Gone since last cycle: its entries not found again, and its entries that were not kept.
    const removed = this.lastLoose;
    for (let j = 0; j < this.matched.length; j++) {
      if (this.matched[j] === 0) {
        const e = this.lastEntries[j];
        if (e !== null && e !== undefined) removed.push(e);
      }
    }
    this.delta = { removed, added: this.added };
    this.lastLoose = this.added.filter((e) => e.admitted === null);
    this.lastJobs = pending.slice();
    this.lastEntries = this.entries;
    this.lastIndex = null;
    if (this.backlog !== null) this.sortKept(pending);
  }

  /** After comparing the arrays: the kept entries in queue order and the loose jobs, for a cycle with the journal. */
  private sortKept(pending: readonly PendingJob[]): void {
    const kept: PendingEntry[] = [];
    const loose: PendingJob[] = [];
    for (let k = 0; k < pending.length; k++) {
      const e = this.entries[k];
      if (e !== null && e !== undefined) kept.push(e);
      else loose.push(pending[k]!);
    }
    if (!isSorted(kept)) kept.sort(compareEntries);
    this.keptSorted = kept;
    this.keptColumns = null;
    this.loose = loose;
  }

  /** Remembers the holders of this cycle's reservations, for the next cycle to find by id. */
  rememberHolders(holders: readonly PendingEntry[]): void {
    this.holders = new Map();
    for (const e of holders) if (e.admitted !== null) this.holders.set(e.id, e.admitted);
    this.holderEntries = [...this.holders.values()].map((a) => a.entry);
  }

  /**
   * This cycle's entry of the job that held a reservation last cycle, if this cycle admitted it
   * through its kept record; else undefined (the caller then looks through the entries).
   */
  holderNow(jobId: string): PendingEntry | undefined {
    const a = this.holders.get(jobId);
    return a !== undefined && a.seen === this.cycle ? a.entry : undefined;
  }

  /** The index of `job` in last cycle's array, or -1. */
  private lastIndexOf(job: PendingJob): number {
    const last = this.lastJobs;
    const j = this.cursor;
    for (let d = 0; d <= LOOKAHEAD && j + d < last.length; d++) {
      if (last[j + d] === job) {
        this.cursor = j + d + 1;
        this.misses = 0;
        return j + d;
      }
    }
    if (this.lastIndex === null) {
      // One miss is most likely a job new this cycle; a second in a row, arrays that parted.
      if (this.misses++ === 0) return -1;
      this.lastIndex = new Map();
      for (let k = 0; k < last.length; k++) this.lastIndex.set(last[k]!, k);
    }
    const k = this.lastIndex.get(job);
    if (k === undefined) return -1;
    if (k >= j) this.cursor = k + 1;
    return k;
  }
}

/** How far apart last cycle's array and this one may drift before a lookup table is built. */
const LOOKAHEAD = 8;
