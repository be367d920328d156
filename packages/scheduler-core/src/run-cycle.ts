import { compareById } from "./budget-tree";
import { clusterShape, gracePeriodFor, requeueAfterPreemption, startedRun, validateJobContractOn } from "./contract";
import type { JobState, NodeBoard } from "./cluster-state";
import { PendingExplainer } from "./explain-pending";
import { FairTree } from "./fair-tree";
import { formatDuration, formatPercent, formatRatio, formatWhen, plural } from "./format";
import { laneOf, pendingEntry, PendingQueues, type PendingEntry } from "./order-pending";
import { findFreePlacement, type Slots } from "./place-jobs";
import { planNodeStates } from "./plan-drains";
import { PendingReasons } from "./pending-reasons";
import { loadWorkingState } from "./working-state";
import { countPlan, summarizeRatios } from "./summarize-cycle";
import { findPreemption, lostGpuSeconds, SearchScratch } from "./plan-preemptions";
import { findEarliestStart, releaseFor, StartEstimator } from "./plan-reservations";
import type {
  ClusterSnapshot,
  CycleResult,
  JobLane,
  PendingJob,
  PendingReason,
  PendingReasonCode,
  PendingReasonDetails,
  PlanOp,
  PolicyConfig,
  PreemptOp,
  PreemptReasonCode,
  Reservation,
  StartReasonCode,
} from "./types";

const LANES: readonly JobLane[] = ["DEBUG", "ALLOCATED", "UNALLOCATED"];

interface ActiveReservation extends Reservation {
  holder: PendingEntry;
}

/**
 * Pending reasons in the order they were decided. The output objects are made when a job is blocked
 * and get their sentence at the end (some numbers need the final state); what the cycle needs beside
 * them sits in parallel arrays, so a blocked job costs no extra object (10,000 pending jobs a cycle).
 */
class ReasonDrafts {
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

/**
 * One scheduling cycle for one cluster (SPEC R1-R11). Pure: the same snapshot, policy and `now`
 * give the same result, whatever the order of the input arrays.
 *
 * Phases:
 *  1. node transitions (R8 unhealthy -> DRAINING, R9 silent -> DOWN);
 *  2. load the working copy: running jobs on nodes, held GPUs per budget (R2 projection);
 *  3. failures and drains: jobs on DOWN nodes are LOST (R9); on DRAINING nodes unallocated and
 *     interruptible jobs are preempted, an empty DRAINING node goes to REPAIR (R8);
 *  4. lanes in turn — debug (R5), allocated, unallocated (R3) — each in fair-tree order (R2): place
 *     on free GPUs (R1, best fit, backfill rules of R7), else preempt (R3/R4/R5/R6), else the first
 *     blocked jobs get a reservation (R7) and every blocked job a reason (R10);
 *  5. explanations that need the final state (earliest start estimates), ratios, stats.
 */
export function runCycle(snapshot: ClusterSnapshot, policy: PolicyConfig, now: number): CycleResult {
  const tree = new FairTree(snapshot.tree, policy.projectionHorizon);
  const { ops: nodeOps, states } = planNodeStates(snapshot.nodes, policy, now);
  const plan: PlanOp[] = [...nodeOps];
  const margin = policy.preemptionMargin;
  /** Bumped whenever a start or a preemption moves held GPUs, hence projected ratios. */
  let ratiosVersion = 0;

  // --- 2. load ---------------------------------------------------------------------------------
  const userDebug = new Map<string, number>();
  const addDebug = (user: string, gpus: number): void => {
    userDebug.set(user, (userDebug.get(user) ?? 0) + gpus);
  };
  const working = loadWorkingState(snapshot, states, tree, policy, now);
  let finished = false;
  try {
    const result = decide(working.board, working.jobs);
    finished = true;
    return result;
  } finally {
    working.finish(finished);
  }

  /** Phases 2-5 on the loaded board and job states (a kept board is rolled back afterwards). */
  function decide(board: NodeBoard, jobStates: JobState[]): CycleResult {
    for (const js of jobStates) {
      if (js.stopping) continue;
      if (js.charged && js.budget >= 0) tree.addHeld(js.budget, js.job.gpus);
      if (js.debug) addDebug(js.job.userId, js.job.gpus);
    }
    // GPUs of interruptible charged work per budget on schedulable nodes: a regular job whose budget
    // ranks ahead of none of these budgets by the margin cannot preempt interruptible work at all (R4),
    // which is known without scanning the nodes.
    const interruptibleByBudget = new Float64Array(tree.size);
    const schedulableSlots = (js: JobState): number => {
      let n = 0;
      for (const sl of js.slots) if (board.schedulable[sl.node]) n += sl.gpus.length;
      return n;
    };
    for (const js of jobStates) {
      if (js.gone || js.stopping || js.isNew || !js.charged || js.budget < 0 || now < js.protectedUntil) continue;
      interruptibleByBudget[js.budget] = interruptibleByBudget[js.budget]! + schedulableSlots(js);
    }
    const forgetInterruptible = (v: JobState): void => {
      if (v.charged && v.budget >= 0 && now >= v.protectedUntil && !v.isNew && !v.stopping && !v.gone)
        interruptibleByBudget[v.budget] = interruptibleByBudget[v.budget]! - schedulableSlots(v);
    };
    const heldAtStart = Float64Array.from(tree.held);
    const projectedAtStart = Array.from({ length: tree.size }, (_, i) => tree.projectedRatio(i));

    const nodeIdsOf = (js: JobState): string[] => js.slots.map((s) => board.nodes[s.node]!.id);
    const stopHolding = (js: JobState): void => {
      if (js.stopping) return;
      if (js.charged && js.budget >= 0) tree.addHeld(js.budget, -js.job.gpus);
      if (js.debug) addDebug(js.job.userId, -js.job.gpus);
    };
    const budgetPath = (budget: number, fallback: string): string => (budget >= 0 ? tree.paths[budget]! : fallback);

    /** R6: SIGTERM now, SIGKILL after the grace; the victim's GPUs serve later starts once it exits. */
    const preempt = (
      v: JobState,
      byJobId: string | null,
      reasonCode: PreemptReasonCode,
      preemptorRatio: number | null,
      why: string,
    ): PreemptOp => {
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
        sentence: `${why} SIGTERM now, SIGKILL after ${grace}s; ${
          requeue ? "requeued with its original submit time" : "not requeued (not resumable)"
        }.`,
        gracePeriod: grace,
        graceUntil: now + grace,
        requeue,
        lostGpuSeconds: lostGpuSeconds(v, now),
        details: { victimRatio, preemptorRatio, nodeIds: nodeIdsOf(v) },
      };
      forgetInterruptible(v);
      stopHolding(v);
      ratiosVersion++;
      v.exitBy = now + grace;
      board.vacate(v);
      plan.push(op);
      return op;
    };

    // --- 3. failures (R9) and drains (R8) ---------------------------------------------------------
    for (let node = 0; node < board.count; node++) {
      if (board.state[node] !== "DOWN") continue;
      for (const js of [...board.jobsOn[node]!]) {
        if (js.gone) continue;
        const requeue = requeueAfterPreemption(js.job);
        const downIds = js.slots.filter((s) => board.state[s.node] === "DOWN").map((s) => board.nodes[s.node]!.id);
        plan.push({
          op: "LOST",
          jobId: js.job.id,
          budgetId: js.job.budgetId,
          gpus: js.job.gpus,
          nodeIds: downIds,
          requeue,
          charged: js.charged,
          sentence: `Lost: node ${downIds.map((id) => board.nodes[board.indexOf(id)!]!.name).join(", ")} is down; ${
            requeue ? "requeued at once with its original submit time" : "not requeued (not resumable)"
          }${js.charged ? "; the segment so far is still charged" : ""}.`,
        });
        forgetInterruptible(js);
        stopHolding(js);
        js.exitBy = now;
        board.vacate(js);
      }
    }
    // maxRuntime reached: stopped like a preemption (its GPUs serve starts once it exits), never requeued.
    let killed = 0;
    for (const js of jobStates) {
      if (js.gone || js.stopping || js.maxEnd > now) continue;
      const grace = gracePeriodFor(js.job, js.charged, policy);
      plan.push({
        op: "KILL",
        jobId: js.job.id,
        budgetId: js.job.budgetId,
        gpus: js.job.gpus,
        gracePeriod: grace,
        graceUntil: now + grace,
        sentence: `Killed: reached its maxRuntime of ${formatDuration(js.job.maxRuntime!)}; SIGTERM now, SIGKILL after ${grace}s; not requeued.`,
      });
      killed++;
      forgetInterruptible(js);
      stopHolding(js);
      js.exitBy = now + grace;
      board.vacate(js);
    }
    for (let node = 0; node < board.count; node++) {
      if (board.state[node] !== "DRAINING") continue;
      const n = board.nodes[node]!;
      const here = [...board.jobsOn[node]!].sort((a, b) => compareById(a.job, b.job));
      if (here.length === 0) {
        plan.push({
          op: "NODE_STATE",
          nodeId: n.id,
          from: "DRAINING",
          to: "REPAIR",
          reason: "DRAINED",
          sentence: `Node ${n.name} is empty after draining: REPAIR, the repair hook fires.`,
          runRepairHook: true,
        });
        board.state[node] = "REPAIR";
        continue;
      }
      for (const js of here) {
        if (js.gone || js.stopping) continue;
        if (js.charged && now < js.protectedUntil) continue; // R4: drains wait for protection to end
        preempt(
          js,
          null,
          "DRAIN",
          null,
          `Preempted: node ${n.name} is draining and this job is ${js.charged ? "interruptible" : "unallocated"}.`,
        );
      }
    }

    // --- 4. pending jobs, lane by lane, in fair-tree order ----------------------------------------
    const reasons = new ReasonDrafts();
    const order: string[] = [];
    const entries: PendingEntry[] = [];
    const nodeSize = board.size;
    const shape = clusterShape(snapshot.nodes);
    const largestFreeBefore = board.largestFree();
    const unorderedDetails = (job: PendingJob, budget: number): PendingReasonDetails => ({
      position: null,
      jobsAhead: 0,
      ratio: budget >= 0 ? tree.projectedRatio(budget) : Infinity,
      gpus: job.gpus,
      largestFreeGpus: largestFreeBefore,
      earliestStart: null,
    });
    // Input order does not matter: queues sort within each budget with an id tie-break, and the few
    // jobs that are not ordered (held, invalid) are sorted by id just below.
    for (let k = 0; k < snapshot.pending.length; k++) {
      const job = snapshot.pending[k]!;
      const budget = tree.indexOf(job.budgetId) ?? -1;
      if (job.held) {
        reasons.push(null, job, "HELD", unorderedDetails(job, budget), false);
        continue;
      }
      let problem: string | null = null;
      if (budget < 0) problem = `budget ${job.budgetId} is not in this cluster's budget tree`;
      else if (!tree.isLeaf(budget)) problem = `${tree.paths[budget]} is not a budget (a leaf of the tree)`;
      else {
        const v = validateJobContractOn(job, shape, policy, snapshot.cluster);
        if (!v.ok) problem = v.errors.join("; ");
      }
      if (problem !== null) {
        reasons.push(null, job, "INVALID_CONTRACT", { ...unorderedDetails(job, budget), problem }, false);
        continue;
      }
      entries.push(pendingEntry(job, budget, laneOf(job, tree.hasEntitlement(budget), policy)));
    }
    reasons.sortById();
    const queues = new PendingQueues(tree, entries);

    let maxSchedulableNode = 0;
    let schedulableWholeNodes = 0;
    for (let node = 0; node < board.count; node++) {
      if (!board.schedulable[node]) continue;
      const c = board.nodes[node]!.gpuCount;
      if (c > maxSchedulableNode) maxSchedulableNode = c;
      if (c === nodeSize) schedulableWholeNodes++;
    }
    const fitsReadyNodes = (g: number): boolean =>
      g <= nodeSize ? g <= maxSchedulableNode : schedulableWholeNodes >= g / nodeSize;
    const largestFreeAtStart = board.largestFree();
    const wholeFreeAtStart = board.buckets[nodeSize]?.filter((n) => board.nodes[n]!.gpuCount === nodeSize).length ?? 0;
    const fitsAtStart = (g: number): boolean => (g <= nodeSize ? g <= largestFreeAtStart : wholeFreeAtStart >= g / nodeSize);

    const reservations: ActiveReservation[] = [];
    // A plain array: a typed array this small is allocated off the JS heap, which costs more per cycle.
    const reservedBy: number[] = new Array<number>(board.count).fill(-1);
    let reservationAttempts = 0;
    const backfillOk = (e: PendingEntry, r: ActiveReservation): boolean => {
      if (e.job.id === r.holder.job.id || e.lane === "UNALLOCATED") return true;
      if (e.job.maxRuntime !== null && now + e.job.maxRuntime <= r.from) return true; // done by then
      return (
        now + e.job.minRuntime <= r.from && // interruptible by then, and the holder may preempt it (R4)
        (r.holder.lane === "DEBUG" || tree.ranksAheadBy(r.holder.budget, e.budget, margin))
      );
    };
    const allowAll = (): boolean => true;
    // R1 placement is monotonic in size: when a job of g GPUs found no free placement on any node, a
    // job of g or more finds none either (one node with >= g free, or whole free nodes) until the free
    // GPUs move (board.freeVersion). Saves a probe per pending job once the cluster is full.
    let noFreeVersion = -1;
    let noFreeFrom = Infinity;
    const freePlacement = (g: number, allow: (node: number) => boolean): Slots | null => {
      if (noFreeVersion === board.freeVersion && g >= noFreeFrom) return null;
      const slots = findFreePlacement(board, g, allow);
      if (slots === null && allow === allowAll && g > 0 && (g <= nodeSize || g % nodeSize === 0)) {
        if (noFreeVersion !== board.freeVersion) {
          noFreeVersion = board.freeVersion;
          noFreeFrom = g;
        } else if (g < noFreeFrom) noFreeFrom = g;
      }
      return slots;
    };
    // One closure for the whole cycle (no allocation per job): the entry it judges is `allowing`.
    let allowing: PendingEntry | null = null;
    const allowReserved = (node: number): boolean => {
      const r = reservedBy[node]!;
      return r < 0 || backfillOk(allowing!, reservations[r]!);
    };
    const allowFor = (e: PendingEntry): ((node: number) => boolean) => {
      if (reservations.length === 0) return allowAll;
      allowing = e;
      return allowReserved;
    };

    const preemptionCtx = { board, tree, policy, now };
    const scratch = new SearchScratch(tree.size);
    // Memoised per budget until the next start or preemption moves the ratios (ratiosVersion).
    const mayPreemptMemo = new Map<number, { version: number; result: boolean }>();
    const mayPreemptInterruptible = (budget: number): boolean => {
      const m = mayPreemptMemo.get(budget);
      if (m && m.version === ratiosVersion) return m.result;
      scratch.begin();
      let result = false;
      for (let b = 0; b < tree.size && !result; b++) {
        if (interruptibleByBudget[b]! > 0 && b !== budget && scratch.eligible(preemptionCtx, budget, b)) result = true;
      }
      mayPreemptMemo.set(budget, { version: ratiosVersion, result });
      return result;
    };
    // (lane, budget, backfill class) -> the most GPUs a failed search could have freed on one node (see
    // SearchScratch.room). Within a cycle victims only get used up and a budget's rank only drops as it
    // starts jobs, so a job of the same budget needing more would find nothing either (up to rank moves
    // of the victims' budgets).
    const failedSearch = new Map<number, number>();
    let preemptionSearches = 0;
    let started = 0;
    let startedGpus = 0;

    const start = (
      e: PendingEntry,
      slots: Slots,
      code: StartReasonCode,
      position: number,
      ratio: number,
      sentence: string,
    ): void => {
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
      };
      const waits = board.occupy(js).sort((a, b) => compareById(a.job, b.job));
      const startBy = waits.reduce((t, w) => Math.max(t, w.exitBy), now);
      job.startedAt = startBy;
      js.protectedUntil = charged ? startBy + e.job.minRuntime : startBy;
      js.maxEnd = e.job.maxRuntime === null ? Infinity : startBy + e.job.maxRuntime;
      jobStates.push(js);
      if (charged) tree.addHeld(e.budget, e.job.gpus);
      ratiosVersion++;
      if (js.debug) addDebug(e.job.userId, e.job.gpus);
      started++;
      startedGpus += e.job.gpus;
      plan.push({
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
          sentence: `${sentence} Position ${position} in order, budget ${tree.paths[e.budget]} ratio ${formatRatio(ratio)}${
            charged
              ? e.job.minRuntime > 0
                ? `; protected for ${formatDuration(e.job.minRuntime)}`
                : ""
              : "; unallocated: free and preemptible at any moment"
          }${waits.length > 0 ? `; starts once ${plural(waits.length, "leaving job")} exit, by ${formatWhen(startBy, now)}` : ""}.`,
        },
      });
    };

    /** The numbers every reason of a blocked job carries, in this key order. */
    const detailsOf = (e: PendingEntry, position: number, ratio: number): PendingReasonDetails => ({
      position,
      jobsAhead: position - 1,
      ratio,
      gpus: e.job.gpus,
      largestFreeGpus: board.largestFree(),
      earliestStart: null,
    });
    /** A blocked job's reason with numbers of its own after the common ones (the rare codes). */
    const block = (
      e: PendingEntry,
      position: number,
      ratio: number,
      code: PendingReasonCode,
      extra: Partial<PendingReasonDetails> | null = null,
    ): void => {
      const details = detailsOf(e, position, ratio);
      if (extra) Object.assign(details, extra);
      reasons.push(e, e.job, code, details, false);
    };
    /**
     * block() for the common reasons, without an `extra` object per job: `margin` (BUDGET_OVER_SHARE),
     * then the reservation it names, if any (earliestStart = from).
     */
    const blockOn = (
      e: PendingEntry,
      position: number,
      ratio: number,
      code: PendingReasonCode,
      withMargin: boolean,
      reservedForJobId: string | null,
      reservedFrom: number,
      estimate: boolean,
    ): void => {
      const details = detailsOf(e, position, ratio);
      if (reservedForJobId !== null) details.earliestStart = reservedFrom;
      if (withMargin) details.margin = margin;
      if (reservedForJobId !== null) {
        details.reservedForJobId = reservedForJobId;
        details.reservedFrom = reservedFrom;
      }
      reasons.push(e, e.job, code, details, estimate);
    };

    /**
     * Tries to start a job now: on free GPUs (R1, reservations honoured), else by preempting (R3, and
     * R4/R5 unless `unallocatedVictimsOnly`). Returns whether it started.
     */
    const tryStart = (
      e: PendingEntry,
      position: number,
      ratio: number,
      unallocatedVictimsOnly: boolean,
      retry: boolean,
    ): boolean => {
      const job = e.job;
      const g = job.gpus;
      const lane = e.lane;
      const allow = allowFor(e);
      const slots = freePlacement(g, allow);
      if (slots) {
        const rIdx = slots.find((s) => reservedBy[s.node]! >= 0);
        const r = rIdx ? reservations[reservedBy[rIdx.node]!]! : null;
        start(
          e,
          slots,
          r ? "BACKFILL" : "FREE_GPUS",
          position,
          ratio,
          r
            ? `Backfilled on nodes reserved for job ${r.holder.job.id} from ${formatWhen(r.from, now)}: it will be done or preemptible by then.`
            : retry
              ? "Started on GPUs freed later in this cycle."
              : "Started on free GPUs.",
        );
        return true;
      }
      if (lane === "UNALLOCATED" || preemptionSearches >= policy.maxPreemptionSearches) return false;
      // Unallocated victims only: the retry pass (R3), or a regular job whose budget ranks ahead of no
      // holder of interruptible work by the margin (R4).
      const unallocatedOnly = unallocatedVictimsOnly || (lane === "ALLOCATED" && !mayPreemptInterruptible(e.budget));
      if (!(board.couldFit(g, 0) || (!unallocatedOnly && board.couldFit(g, 1)))) return false;
      // Key: (budget, or one key for the whole debug lane) x victim tiers x which reservations it may use.
      let mask = 0;
      for (let i = 0; i < reservations.length && i < 20; i++) if (backfillOk(e, reservations[i]!)) mask |= 1 << i;
      const key = ((lane === "DEBUG" ? tree.size : e.budget) * 2 + (unallocatedOnly ? 1 : 0)) * 2 ** 20 + mask;
      const room = failedSearch.get(key) ?? Infinity;
      if (g > room) return false;
      preemptionSearches++;
      const choice = findPreemption(preemptionCtx, scratch, g, unallocatedOnly ? "RETRY" : lane, e.budget, allow);
      if (!choice) {
        failedSearch.set(key, Math.min(room, g - 1, scratch.room));
        return false;
      }
      const victimsUnallocated = choice.tier === 0;
      for (const v of [...choice.victims].sort((x, y) => compareById(x.job, y.job))) {
        const vRatio = v.budget >= 0 ? tree.projectedRatio(v.budget) : Infinity;
        const code: PreemptReasonCode = !v.charged ? "UNALLOCATED_FOR_ALLOCATED" : lane === "DEBUG" ? "DEBUG_LANE" : "FAIR_SHARE";
        const why =
          code === "UNALLOCATED_FOR_ALLOCATED"
            ? `Preempted: unallocated work makes room for allocated job ${job.id} (budget ${tree.paths[e.budget]} ratio ${formatRatio(ratio)}).`
            : code === "DEBUG_LANE"
              ? `Preempted for debug-lane job ${job.id}: this job was interruptible and budget ${budgetPath(v.budget, v.job.budgetId)} (ratio ${formatRatio(vRatio)}) was among the most over-served.`
              : `Preempted for job ${job.id}: budget ${tree.paths[e.budget]} ratio ${formatRatio(ratio)} ranks ahead of budget ${budgetPath(v.budget, v.job.budgetId)} ratio ${formatRatio(vRatio)} by more than ${formatPercent(margin)}, and this job was interruptible.`;
        preempt(v, job.id, code, ratio, why);
      }
      const placed: Slots = choice.nodes.map((node) => ({ node, gpus: board.freeIndexes(node, g <= nodeSize ? g : nodeSize) }));
      const n = choice.victims.length;
      start(
        e,
        placed,
        lane === "DEBUG" && !victimsUnallocated
          ? "DEBUG_LANE"
          : victimsUnallocated
            ? "PREEMPTED_UNALLOCATED"
            : "PREEMPTED_INTERRUPTIBLE",
        position,
        ratio,
        victimsUnallocated
          ? `Started by preempting ${plural(n, "unallocated job")}.`
          : lane === "DEBUG"
            ? `Debug-lane job started by preempting ${plural(n, "job")}.`
            : `Started by preempting ${plural(n, "job")}, interruptible ones of budgets ranked behind by more than ${formatPercent(margin)}.`,
      );
      return true;
    };

    /** Debug jobs over their user's cap, moved to the allocated lane: the user's debug GPUs then (R5). */
    const overDebugCap = new Map<string, number>();
    /** Allocated jobs that did not start, for the retry before unallocated work (R3). */
    const blockedAllocatedJobs: number[] = []; // indexes into `reasons`

    // R5/R7: carry the previous cycle's reservations through the debug lane (see ClusterSnapshot).
    const carried = new Map<string, PendingEntry>();
    if (snapshot.reservations && snapshot.reservations.length > 0) {
      const wanted = new Set(snapshot.reservations.map((r) => r.jobId));
      for (const e of entries) if (wanted.has(e.job.id)) carried.set(e.job.id, e);
      for (const r of [...snapshot.reservations].sort((a, b) => (a.jobId < b.jobId ? -1 : a.jobId > b.jobId ? 1 : 0))) {
        const holder = carried.get(r.jobId);
        if (!holder || reservations.length >= policy.maxReservations) continue;
        const nodes = r.nodeIds.map((id) => board.indexOf(id)).filter((n): n is number => n !== undefined && reservedBy[n]! < 0);
        if (nodes.length === 0) continue;
        for (const n of nodes) reservedBy[n] = reservations.length;
        reservations.push({ jobId: r.jobId, gpus: r.gpus, nodeIds: nodes.map((n) => board.nodes[n]!.id), from: r.from, holder });
      }
    }

    for (const lane of LANES) {
      if (lane === "ALLOCATED" && carried.size > 0) {
        // The allocated lane computes this cycle's reservations afresh.
        reservations.length = 0;
        reservedBy.fill(-1);
        failedSearch.clear();
      }
      if (lane === "UNALLOCATED") {
        // R3: GPUs freed later in the cycle (what victims held beyond what their preemptor needed)
        // go to blocked allocated jobs, in order, before any unallocated job may use them.
        for (const i of blockedAllocatedJobs) {
          if (board.largestFree() === 0 && !board.couldFit(1, 0)) break;
          const e = reasons.entry[i]!;
          if (e.lane === "DEBUG" && (userDebug.get(e.job.userId) ?? 0) + e.job.gpus > policy.debugMaxGpusPerUser) continue;
          const d = reasons.out[i]!.details;
          if (tryStart(e, d.position!, d.ratio, true, true)) reasons.out[i] = null;
        }
      }
      for (let e = queues.next(lane); e !== null; e = queues.next(lane)) {
        const job = e.job;
        const g = job.gpus;
        order.push(job.id);
        const position = order.length;
        const ratio = tree.projectedRatio(e.budget);
        if (!fitsReadyNodes(g)) {
          block(e, position, ratio, "CLUSTER_DRAINING");
          continue;
        }
        if (lane === "DEBUG") {
          const held = userDebug.get(job.userId) ?? 0;
          if (held + g > policy.debugMaxGpusPerUser) {
            // R5's cap limits the lane, not the job: over it, the job is ordered and placed as the
            // allocated job it is (R2, R3, R4), and says DEBUG_USER_CAP if it waits there.
            order.pop();
            overDebugCap.set(job.id, held);
            queues.add({ ...e, lane: "ALLOCATED" });
            continue;
          }
        }
        if (tryStart(e, position, ratio, false, false)) continue;

        // R7: the first blocked jobs get a reservation from the earliest time enough GPUs free up.
        let reservedFrom: number | null = null;
        if (
          lane !== "UNALLOCATED" &&
          reservations.length < policy.maxReservations &&
          reservationAttempts < policy.maxReservations * 4
        ) {
          reservationAttempts++;
          const choice = findEarliestStart(
            board,
            g,
            releaseFor(tree, policy, now, lane, e.budget),
            (node) => reservedBy[node]! < 0,
          );
          if (choice) {
            const r: ActiveReservation = {
              jobId: job.id,
              gpus: g,
              nodeIds: choice.nodes.map((n) => board.nodes[n]!.id),
              from: choice.from,
              holder: e,
            };
            for (const n of choice.nodes) reservedBy[n] = reservations.length;
            reservations.push(r);
            reservedFrom = r.from;
            plan.push({
              op: "RESERVE",
              jobId: job.id,
              nodeIds: r.nodeIds,
              from: r.from,
              sentence: `Reserved ${plural(r.nodeIds.length, "node")} (${choice.nodes
                .map((n) => board.nodes[n]!.name)
                .join(
                  ", ",
                )}) for job ${job.id} from ${formatWhen(r.from, now)}; until then only work done or interruptible by then may start there.`,
            });
          }
        }

        // R10: why it waits.
        if (lane !== "UNALLOCATED") blockedAllocatedJobs.push(reasons.length);
        const resJob = reservedFrom === null ? null : job.id;
        const resFrom = reservedFrom ?? 0;
        const capHeld = overDebugCap.size > 0 ? overDebugCap.get(job.id) : undefined;
        if (capHeld !== undefined) {
          block(e, position, ratio, "DEBUG_USER_CAP", { userDebugGpus: capHeld, debugCap: policy.debugMaxGpusPerUser });
        } else if (!tree.hasEntitlement(e.budget)) {
          blockOn(e, position, ratio, "NO_ENTITLEMENT", false, null, 0, false);
        } else if (
          reservations.length > 0 &&
          // It would fit on free GPUs, or (allocated) by preempting unallocated work, but for a reservation.
          (freePlacement(g, allowAll) !== null || (lane !== "UNALLOCATED" && board.couldFit(g, 0)))
        ) {
          let r = reservations[0]!;
          for (let k = 0; k < reservations.length; k++) {
            if (!backfillOk(e, reservations[k]!)) {
              r = reservations[k]!;
              break;
            }
          }
          blockOn(e, position, ratio, "RESERVED_FOR", false, r.jobId, r.from, false);
        } else if (fitsAtStart(g)) {
          blockOn(e, position, ratio, "ORDER", false, resJob, resFrom, false);
        } else if (lane === "ALLOCATED" && board.couldFit(g, 1)) {
          blockOn(e, position, ratio, "BUDGET_OVER_SHARE", true, resJob, resFrom, false);
        } else if (lane !== "UNALLOCATED" && board.couldFit(g, 2)) {
          blockOn(e, position, ratio, "CONTRACTS", false, resJob, resFrom, reservedFrom === null);
        } else {
          blockOn(e, position, ratio, "CAPACITY", false, resJob, resFrom, reservedFrom === null && lane !== "UNALLOCATED");
        }
      }
    }

    // --- 5. explanations, ratios, stats -----------------------------------------------------------
    const estimator = new StartEstimator(board);
    const explainer = new PendingExplainer(nodeSize);
    // Not a record keyed by id: 10,000 fresh id strings as object keys are each internalised, which
    // was half of this function's own time in a profile (see PendingReasons).
    const pendingIds: string[] = [];
    const pendingReasons: PendingReason[] = [];
    let blockedAllocated = 0;
    for (let k = 0; k < reasons.length; k++) {
      const r = reasons.out[k];
      if (!r) continue; // started in the retry pass
      const job = reasons.job[k]!;
      const entry = reasons.entry[k]!;
      if (reasons.estimate[k]) r.details.earliestStart = estimator.earliest(job.gpus);
      if (entry && entry.lane !== "UNALLOCATED") blockedAllocated++;
      r.sentence = explainer.sentence(
        r.code,
        entry ? tree.paths[entry.budget]! : job.budgetId,
        job.userName ?? job.userId,
        now,
        r.details,
      );
      pendingIds.push(job.id);
      pendingReasons.push(r);
    }

    const ratios = summarizeRatios(tree, heldAtStart, projectedAtStart);
    const counts = countPlan(plan, board);

    return {
      now,
      clusterId: snapshot.cluster.id,
      plan,
      order,
      pending: new PendingReasons(pendingIds, pendingReasons),
      ratios,
      reservations: reservations.map(({ jobId, gpus, nodeIds, from }) => ({ jobId, gpus, nodeIds, from })),
      stats: {
        nodes: board.count,
        schedulableNodes: counts.schedulableNodes,
        totalGpus: counts.totalGpus,
        schedulableGpus: counts.schedulableGpus,
        idleGpusAfter: board.idleGpus(),
        running: snapshot.running.length,
        pending: snapshot.pending.length,
        started,
        startedGpus,
        preempted: counts.preempted,
        preemptedGpus: counts.preemptedGpus,
        lost: counts.lost,
        killed,
        reservations: reservations.length,
        blockedAllocated,
        preemptionSearches,
      },
    };
  }
}
