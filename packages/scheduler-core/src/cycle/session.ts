import { compareById } from "../budget-tree";
import type { JobState, NodeBoard } from "../cluster-state";
import { gracePeriodFor, requeueAfterPreemption, startedRun } from "../contract";
import type { FairTree } from "../fair-tree";
import { NEVER } from "./rule-set";
import { formatExactDuration, formatWithin, lineText, plural, shareUsedText } from "../format";
import type { PendingEntry, PendingQueues } from "../order-pending";
import type { Slots } from "../place-jobs";
import { lostGpuSeconds, SearchScratch, type PreemptionContext } from "../plan-preemptions";
import type { ClusterSnapshot, PlanOp, PolicyConfig, PreemptOp, PreemptReasonCode, StartReasonCode } from "../types";
import type { EntryColumns } from "../entry-columns";
import type { KeptAdmission } from "../kept-admission";
import { BlockedList } from "./blocked-list";
import { JobLimits } from "./job-rules";
import { OrderList } from "./order-list";
import { ReasonDrafts } from "./reason-drafts";
import type { RunningTotals } from "../running-totals";
import type { RuleSet } from "./rule-set";
import { NodeConstraints } from "../node-constraints";
import { Reservations } from "./reservations";
import { SearchMemo } from "./search-memo";

/** An unallocated victim of R3, its PREEMPT op, and the GPUs of the start it made room for. */
export interface MoveCandidate {
  victim: JobState;
  op: PreemptOp;
  /** The preemptor's placement: a move is made only when it covers every GPU the victim leaves. */
  by: Slots;
}

/**
 * Everything one cycle decides on, owned in one place: the fair tree (R2 ratios, moved by every start
 * and preemption), the node board (who holds which GPU), the plan, the pending reasons and the
 * reservations. Each phase in this folder reads and changes it; the two moves every phase makes —
 * stopping a running job and starting a pending one — are its methods, so held GPUs, the debug cap
 * and the board always move together.
 */
export class CycleSession {
  readonly plan: PlanOp[];
  readonly reasons = new ReasonDrafts();
  readonly reservations: Reservations;
  readonly memo: SearchMemo;
  readonly scratch: SearchScratch;
  /** What a preemption search reads (one object for the whole cycle). */
  readonly preemptionCtx: PreemptionContext;
  /** The fair-tree order of every job the lanes looked at (CycleResult.order). */
  readonly order = new OrderList();
  /** Pending jobs that may be ordered (valid, not held), with budget and lane; set by admitPending. */
  entries: readonly PendingEntry[] = [];
  /**
   * `entries` are admission's kept entries as it gives them with a backlog, in queue order
   * (compareEntries): a baseline then skips its check and reads their columns (`admission.columns()`).
   * They are then admission's own array, which its next cycle changes in place: what outlives the
   * cycle (a baseline's deferred reasons) reads a copy.
   */
  entriesInQueueOrder = false;
  /** The fair-tree queues over `entries` (fairshare's phase 6 builds them; baselines keep one global order). */
  queues: PendingQueues | null = null;
  /** Debug GPUs each user holds (R5 cap). */
  readonly userDebug = new Map<string, number>();
  /**
   * GPUs of interruptible charged work per budget on schedulable nodes: a regular job whose budget
   * ranks ahead of none of these budgets by the margin cannot preempt interruptible work at all (R4),
   * which is known without scanning the nodes.
   */
  readonly interruptibleByBudget: number[];
  /** Held GPUs and projected ratios before this cycle's moves (CycleResult.ratios). */
  heldAtStart: readonly number[] = [];
  projectedAtStart: number[] = [];
  /** Bumped whenever a start or a preemption moves held GPUs, hence projected ratios. */
  ratiosVersion = 0;
  started = 0;
  startedGpus = 0;
  killed = 0;
  preemptionSearches = 0;
  /** A debug job over its user's cap, who then held `held` debug GPUs (R5). */
  setOverDebugCap(e: PendingEntry, held: number): void {
    this.overDebugCap.set(e.id, held);
    this.overDebugCapKinds.add(e.gpus * this.tree.size + e.budget);
  }

  /** Is `e` a debug job over its user's cap? */
  isOverDebugCap(e: PendingEntry): boolean {
    return this.isOverDebugCapJob(e.gpus, e.budget, e.id);
  }

  /** Is the job of these GPUs, budget and id a debug job over its user's cap? */
  isOverDebugCapJob(gpus: number, budget: number, id: string): boolean {
    return this.mayBeOverDebugCap(gpus, budget) && this.overDebugCap.has(id);
  }

  /** May a job of these GPUs and budget be a debug job over its user's cap (then its id says)? */
  mayBeOverDebugCap(gpus: number, budget: number): boolean {
    return this.overDebugCap.size > 0 && this.overDebugCapKinds.has(gpus * this.tree.size + budget);
  }

  /** The jobs of the next `count` reason drafts did not start: entries k.. of `cols` (for the retry, R3). */
  blockedAllocated(cols: EntryColumns, k: number, count = 1): void {
    this.blocked.add(cols, k, count, this.reasons.length);
  }

  /** Debug jobs over their user's cap, moved to the allocated lane: the user's debug GPUs then (R5). */
  readonly overDebugCap = new Map<string, number>();
  /** The GPUs and budget (gpus x tree size + budget) of each job in overDebugCap: most jobs are ruled out without their id. */
  private readonly overDebugCapKinds = new Set<number>();
  /** Allocated jobs that did not start, for the retry before unallocated work (R3). */
  readonly blocked = new BlockedList();
  /**
   * How many of the blocked jobs were tried on another board (its jobs) or other reservations than
   * the allocated lane ended with: the rest were tried on those the retry starts from.
   */
  settledFrom = 0;
  /** Unallocated jobs preempted for allocated work that may be moved instead (R12, cycle/consolidate.ts). */
  readonly moveCandidates: MoveCandidate[] = [];
  /** Job sizes no move can make room for, while the free GPUs stay as they were (R12, consolidate.ts). */
  readonly consolidationFailed = { version: -1, sizes: new Set<number>() };
  /** Array caps and per-user limits (job-rules.ts), counted through the cycle. */
  readonly limits: JobLimits;
  /**
   * Reasons that can be written later wait for a reader: a closed unallocated lane's (closed-lane.ts)
   * and a baseline's waiting jobs' (baselines/waiting-notes.ts); false only in the tests that check it.
   */
  deferReasons = true;
  /** Jobs whose reasons wait for a reader, and what writes them (closed-lane.ts, waiting-notes.ts). */
  deferredCount = 0;
  /** Jobs of a baseline's walk left unwalked once none could start (baselines/closed-tail.ts); decides nothing. */
  closedTailJobs = 0;
  /** Jobs of a baseline's walk passed in runs that wait together, the closed tail included (baselines/quiet-runs.ts); decides nothing. */
  quietRunJobs = 0;
  private deferred: (() => void) | null = null;

  constructor(
    readonly snapshot: ClusterSnapshot,
    readonly policy: PolicyConfig,
    readonly now: number,
    readonly tree: FairTree,
    readonly board: NodeBoard,
    /** Running jobs in id order; starts are appended. */
    readonly jobs: JobState[],
    /** What they add up to as the cycle starts (running-totals.ts); read by holdRunning, not changed. */
    readonly totals: RunningTotals,
    nodeOps: readonly PlanOp[],
    /** The regime: protection of the runs it starts, and how pending jobs are taken (rule-set.ts). */
    readonly rules: RuleSet,
    /** Pending jobs admitted by earlier cycles (kept-admission.ts). */
    readonly admission: KeptAdmission,
  ) {
    this.plan = [...nodeOps];
    this.reservations = new Reservations(board, tree, policy, now, new NodeConstraints(board));
    this.memo = new SearchMemo(board, this.reservations.allowAll);
    this.scratch = new SearchScratch(tree.size);
    this.preemptionCtx = { board, tree, policy, now, holder: "none" };
    this.interruptibleByBudget = totals.interruptible.slice();
    this.limits = new JobLimits(snapshot, totals.arrayRunning, (id) => tree.indexOf(id));
  }

  /** The last `count` jobs' reasons are written by `write` when first read (closed-lane.ts, waiting-notes.ts). */
  defer(count: number, write: () => void): void {
    this.deferredCount = count;
    this.deferred = write;
  }

  /** The deferred reasons' writer, for the result's reasons to call when first read (explanations.ts); once. */
  takeDeferred(): { count: number; write: () => void } | null {
    const write = this.deferred;
    this.deferred = null;
    return write === null ? null : { count: this.deferredCount, write };
  }

  /** The whole-node size: the largest gpuCount. */
  get nodeSize(): number {
    return this.board.size;
  }

  addDebug(user: string, gpus: number): void {
    this.userDebug.set(user, (this.userDebug.get(user) ?? 0) + gpus);
  }

  budgetPath(budget: number, fallback: string): string {
    return budget >= 0 ? this.tree.paths[budget]! : fallback;
  }

  /** A job stops: it no longer counts as interruptible work, held GPUs or debug GPUs, and leaves the board. */
  private stop(js: JobState, exitBy: number): void {
    const now = this.now;
    if (js.charged && js.budget >= 0 && now >= js.protectedUntil && !js.isNew && !js.stopping && !js.gone)
      this.interruptibleByBudget[js.budget] = this.interruptibleByBudget[js.budget]! - js.schedulableGpus;
    if (!js.stopping) {
      if (js.charged && js.budget >= 0) this.tree.addHeld(js.budget, -js.job.gpus);
      if (js.debug) this.addDebug(js.job.userId, -js.job.gpus);
    }
    js.exitBy = exitBy;
    this.board.vacate(js);
  }

  /** R9: a job on a DOWN node is lost at once. */
  lose(js: JobState): void {
    this.stop(js, this.now);
  }

  /** maxRuntime reached (and R6 for preemptions): its GPUs serve later starts once it exits. */
  kill(js: JobState, grace: number): void {
    this.stop(js, this.now + grace);
  }

  /** R6: SIGTERM now, SIGKILL after the grace; the victim's GPUs serve later starts once it exits. */
  preempt(
    v: JobState,
    byJobId: string | null,
    reasonCode: PreemptReasonCode,
    preemptorRatio: number | null,
    why: string,
  ): PreemptOp {
    const { policy, now, tree, board } = this;
    const grace = gracePeriodFor(v.job, v.charged, policy);
    const requeue = requeueAfterPreemption(v.job);
    const victimRatio = v.budget >= 0 ? tree.projectedRatio(v.budget) : Infinity;
    const op: PreemptOp = {
      op: "PREEMPT",
      jobId: v.job.id,
      budgetId: v.job.budgetId,
      gpus: v.job.gpus,
      byJobId,
      reasonCode,
      sentence: `${why} Asked to stop now, stopped by force after ${formatExactDuration(grace)} if still running; ${
        requeue ? "requeued with its original submit time" : "not requeued (not resumable)"
      }.`,
      gracePeriod: grace,
      graceUntil: now + grace,
      requeue,
      lostGpuSeconds: lostGpuSeconds(v, now),
      details: { victimRatio, preemptorRatio, nodeIds: v.slots.map((s) => board.nodes[s.node]!.id) },
    };
    this.stop(v, now + grace);
    this.ratiosVersion++;
    this.plan.push(op);
    return op;
  }

  /**
   * R12: a job preempted in this cycle restarts on `slots` (free GPUs) once its old processes have
   * exited: a START naming itself in afterExitOf, at its SIGKILL time at the latest. Unallocated, so
   * free and not charged; its latest start (and so its next move) counts from then.
   */
  relaunch(v: JobState, slots: Slots, sentence: string): void {
    const { now, board } = this;
    const placement = slots.map((s) => ({ nodeId: board.nodes[s.node]!.id, gpuIndexes: s.gpus }));
    const job = startedRun(v.job, now, placement, false);
    const js: JobState = {
      job,
      budget: v.budget,
      charged: false,
      debug: false,
      protectedUntil: now,
      maxEnd: Infinity,
      stopping: false,
      exitBy: now,
      isNew: true,
      gone: false,
      slots,
      schedulableGpus: board.schedulableGpusOf(slots),
    };
    // Free GPUs may still be held by other jobs leaving in this cycle: it waits for them too.
    const waits = board.occupy(js).sort((a, b) => compareById(a.job, b.job));
    const startBy = waits.reduce((t, w) => Math.max(t, w.exitBy), Math.max(now, v.exitBy));
    job.startedAt = startBy;
    js.protectedUntil = startBy;
    js.maxEnd = v.job.maxRuntime === null ? Infinity : startBy + v.job.maxRuntime;
    this.jobs.push(js);
    this.started++;
    this.startedGpus += v.job.gpus;
    this.plan.push({
      op: "START",
      jobId: v.job.id,
      budgetId: v.job.budgetId,
      userId: v.job.userId,
      gpus: v.job.gpus,
      placement,
      charged: false,
      lane: "UNALLOCATED",
      afterExitOf: [v.job.id, ...waits.map((w) => w.job.id)],
      startBy,
      protectedUntil: startBy,
      reason: {
        code: "CONSOLIDATION",
        position: 0,
        ratio: Infinity,
        sentence: `${sentence} Unallocated: free and preemptible at any moment; restarts once its old processes exit, ${formatWithin(startBy, now)}.`,
      },
    });
  }

  /** A pending job starts on `slots` (R1); it launches once the leaving jobs there have exited (R6). */
  start(e: PendingEntry, slots: Slots, code: StartReasonCode, position: number, ratio: number, sentence: string): void {
    const { now, board, tree } = this;
    const charged = e.lane !== "UNALLOCATED";
    const placement = slots.map((s) => ({ nodeId: board.nodes[s.node]!.id, gpuIndexes: s.gpus }));
    const job = startedRun(e.job, now, placement, charged);
    const js: JobState = {
      job,
      budget: e.budget,
      charged,
      debug: e.lane === "DEBUG",
      protectedUntil: now,
      maxEnd: Infinity,
      stopping: false,
      exitBy: now,
      isNew: true,
      gone: false,
      slots,
      schedulableGpus: board.schedulableGpusOf(slots),
    };
    const waits = board.occupy(js).sort((a, b) => compareById(a.job, b.job));
    const startBy = waits.reduce((t, w) => Math.max(t, w.exitBy), now);
    job.startedAt = startBy;
    js.protectedUntil = charged
      ? this.rules.protectedUntil({ startedAt: startBy, minRuntime: e.job.minRuntime, squattingSince: null }, this.policy)
      : startBy;
    js.maxEnd = e.job.maxRuntime === null ? Infinity : startBy + e.job.maxRuntime;
    this.jobs.push(js);
    if (charged) tree.addHeld(e.budget, e.job.gpus);
    this.ratiosVersion++;
    if (js.debug) this.addDebug(e.job.userId, e.job.gpus);
    this.limits.started(e.job);
    this.started++;
    this.startedGpus += e.job.gpus;
    this.plan.push({
      op: "START",
      jobId: e.job.id,
      budgetId: e.job.budgetId,
      userId: e.job.userId,
      gpus: e.job.gpus,
      placement: job.placement,
      charged,
      lane: e.lane,
      afterExitOf: waits.map((w) => w.job.id),
      startBy,
      protectedUntil: js.protectedUntil,
      reason: {
        code,
        position,
        ratio,
        sentence: `${sentence} It was ${lineText(position, true)} on this cluster, from budget ${tree.paths[e.budget]}, which ${shareUsedText(ratio, this.policy)}${
          charged
            ? js.protectedUntil >= NEVER
              ? "; not preemptible until it ends"
              : e.job.minRuntime > 0
                ? `; protected for ${formatExactDuration(e.job.minRuntime)}`
                : ""
            : "; unallocated: free and preemptible at any moment"
        }${waits.length > 0 ? `; starts once ${plural(waits.length, "leaving job")} ${waits.length === 1 ? "exits" : "exit"}, ${formatWithin(startBy, now)}` : ""}.`,
      },
    });
  }
}
