/**
 * Baseline policies, to show on the same trace what fair-share changes. Same input (one cluster's
 * snapshot, the policy, now) and same output shape (CycleResult) as runCycle; pure, deterministic.
 *
 * `priority` — the regime Tranche replaces (SPEC §1):
 *   - pending jobs in one global order: job priority (higher first), then submit time, then id;
 *   - a job that asks for protection (minRuntime > 0) runs NON-PREEMPTIBLE while its team (leaf
 *     budget) holds fewer non-preemptible GPUs than its cap (its effective allocation x the cluster's
 *     schedulable GPUs); beyond the cap it runs preemptible. Non-preemptible runs are `charged` and
 *     protected until they end (maxRuntime, or never);
 *   - preemptible runs are preempted for a pending job that outranks them: a job that would run
 *     non-preemptible outranks every preemptible run; otherwise a strictly higher priority does;
 *   - drains (R8) preempt preemptible runs at once; non-preemptible runs keep the node until they end
 *     (the manual-maintenance pathology). DOWN (R9) as everywhere.
 * `fifo` — plain first-come first-served with backfill:
 *   - pending jobs by original submit time, then id; no preemption;
 *   - a job that cannot start is skipped and later jobs backfill, except on the nodes reserved for
 *     the first blocked job (the nodes that will hold it soonest by free GPUs now), so large jobs
 *     do not starve;
 *   - runs are charged like SPEC §2 allocated occupancy (minRuntime > 0, budget with entitlement);
 *     drains preempt a run once its minRuntime has passed (R8).
 * Both use the core's node board and free placement (R1: gang, best fit, whole nodes).
 */
import { PendingReasons } from "../pending-reasons";
import { compareById, effectiveAllocations } from "../budget-tree";
import { NodeBoard, type JobState } from "../cluster-state";
import { gracePeriodFor, isDebugLane, requeueAfterPreemption } from "../contract";
import { formatDuration, plural } from "../format";
import { findFreePlacement, type Slots } from "../place-jobs";
import type {
  ClusterSnapshot,
  CycleResult,
  CycleStats,
  JobLane,
  Node,
  NodeState,
  PendingJob,
  PendingReason,
  PlanOp,
  PolicyConfig,
  PreemptOp,
  RunningJob,
  StartOp,
  TreeNodeRatio,
} from "../types";

export type BaselineKind = "priority" | "fifo";

/** Protection end of a non-preemptible run in the priority baseline: it never ends by itself. */
export const NEVER = Number.MAX_SAFE_INTEGER;

function leafIds(snapshot: ClusterSnapshot): Set<string> {
  const parents = new Set<string>();
  for (const n of snapshot.tree) if (n.parentId !== null) parents.add(n.parentId);
  return new Set(snapshot.tree.filter((n) => !parents.has(n.id)).map((n) => n.id));
}

/** R8/R9 node states for the baselines; `mayLeave` says whether a run may be drained now. */
function planNodes(
  snapshot: ClusterSnapshot,
  policy: PolicyConfig,
  now: number,
  mayLeave: (j: RunningJob) => boolean,
): { ops: PlanOp[]; state: Map<string, NodeState>; lost: Set<string>; drained: Map<string, number> } {
  const ops: PlanOp[] = [];
  const state = new Map<string, NodeState>();
  const lost = new Set<string>();
  const drained = new Map<string, number>();
  const nodes = [...snapshot.nodes].sort(compareById);
  // Jobs per node, built only when some node drains or goes down (rare; keeps cycles cheap).
  const needsJobs = nodes.some(
    (n) =>
      n.state === "DRAINING" ||
      ((n.state === "READY" || n.state === "CORDONED") && n.health === "UNHEALTHY") ||
      (n.state !== "DOWN" &&
        n.state !== "REPAIR" &&
        n.lastHeartbeatAt !== null &&
        now - n.lastHeartbeatAt > policy.heartbeatTimeout),
  );
  const jobsOn = new Map<string, RunningJob[]>();
  if (needsJobs) {
    for (const j of [...snapshot.running].sort(compareById)) {
      for (const p of j.placement) {
        const list = jobsOn.get(p.nodeId);
        if (list) list.push(j);
        else jobsOn.set(p.nodeId, [j]);
      }
    }
  }
  const move = (n: Node, to: NodeState, reason: "UNHEALTHY_REPORT" | "DRAINED" | "HEARTBEAT_TIMEOUT"): void => {
    const from = state.get(n.id) ?? n.state;
    ops.push({
      op: "NODE_STATE",
      nodeId: n.id,
      from,
      to,
      reason,
      sentence: `Node ${n.name} ${from} -> ${to} (${reason}).`,
      runRepairHook: to === "REPAIR",
    });
    state.set(n.id, to);
  };
  for (const n of nodes) {
    let s = n.state;
    if (s !== "DOWN" && s !== "REPAIR" && n.lastHeartbeatAt !== null && now - n.lastHeartbeatAt > policy.heartbeatTimeout) {
      move(n, "DOWN", "HEARTBEAT_TIMEOUT");
      for (const j of jobsOn.get(n.id) ?? []) {
        if (lost.has(j.id)) continue;
        lost.add(j.id);
        ops.push({
          op: "LOST",
          jobId: j.id,
          budgetId: j.budgetId,
          gpus: j.gpus,
          nodeIds: j.placement.map((p) => p.nodeId),
          requeue: requeueAfterPreemption(j),
          charged: j.charged ?? j.minRuntime > 0,
          sentence: `Job ${j.id} was lost with node ${n.name}.`,
        });
      }
      continue;
    }
    if ((s === "READY" || s === "CORDONED") && n.health === "UNHEALTHY") {
      move(n, "DRAINING", "UNHEALTHY_REPORT");
      s = "DRAINING";
    }
    if (s !== "DRAINING") continue;
    const left = (jobsOn.get(n.id) ?? []).filter((j) => !lost.has(j.id));
    if (left.length === 0) {
      move(n, "REPAIR", "DRAINED");
      continue;
    }
    for (const j of left) {
      if (j.stopping || drained.has(j.id) || !mayLeave(j)) continue;
      const charged = j.charged ?? j.minRuntime > 0;
      const grace = gracePeriodFor(j, charged, policy);
      drained.set(j.id, now + grace);
      ops.push({
        op: "PREEMPT",
        jobId: j.id,
        budgetId: j.budgetId,
        gpus: j.gpus,
        byJobId: null,
        reasonCode: "DRAIN",
        sentence: `Job ${j.id} leaves draining node ${n.name}.`,
        gracePeriod: grace,
        graceUntil: now + grace,
        requeue: requeueAfterPreemption(j),
        lostGpuSeconds: j.gpus * Math.max(0, now - j.startedAt),
        details: { victimRatio: 0, preemptorRatio: null, nodeIds: j.placement.map((p) => p.nodeId) },
      });
    }
  }
  return { ops, state, lost, drained };
}

export function runBaselineCycle(kind: BaselineKind, snapshot: ClusterSnapshot, policy: PolicyConfig, now: number): CycleResult {
  const eff = effectiveAllocations(snapshot.tree);
  const leaves = leafIds(snapshot);
  const entitled = (budgetId: string): boolean => leaves.has(budgetId) && (eff.get(budgetId) ?? 0) > 0;
  const chargedOf = (j: RunningJob): boolean => j.charged ?? (j.minRuntime > 0 && entitled(j.budgetId));
  // What may be preempted (by a drain or, for `priority`, by an outranking job) right now.
  const preemptible = (j: RunningJob): boolean =>
    kind === "priority" ? !chargedOf(j) : !chargedOf(j) || now >= j.startedAt + j.minRuntime;

  const nodePlan = planNodes(snapshot, policy, now, preemptible);
  const plan: PlanOp[] = [...nodePlan.ops];
  const board = new NodeBoard(snapshot.nodes, nodePlan.state, now);

  const states = new Map<string, JobState>();
  // Loaded in id order: choices break ties by node order or job id, and the order of a node's jobs
  // (a multi-node preemption's victims, hence its PREEMPT ops) follows the load order.
  for (const j of [...snapshot.running].sort(compareById)) {
    if (nodePlan.lost.has(j.id)) continue;
    const charged = chargedOf(j);
    const slots: Slots = [];
    for (const p of j.placement) {
      const node = board.indexOf(p.nodeId);
      if (node !== undefined) slots.push({ node, gpus: [...p.gpuIndexes] });
    }
    const drainedUntil = nodePlan.drained.get(j.id);
    const js: JobState = {
      job: j,
      budget: -1,
      charged,
      debug: isDebugLane(j, policy),
      protectedUntil: kind === "priority" ? (charged ? NEVER : j.startedAt) : charged ? j.startedAt + j.minRuntime : j.startedAt,
      maxEnd: j.maxRuntime === null ? Infinity : j.startedAt + j.maxRuntime,
      stopping: !!j.stopping || drainedUntil !== undefined,
      exitBy: j.stopping?.graceUntil ?? drainedUntil ?? now,
      isNew: false,
      gone: false,
      slots,
    };
    states.set(j.id, js);
    board.load(js);
  }
  board.finishLoad();

  // Non-preemptible GPUs each team holds now (priority baseline caps).
  const capOf = new Map<string, number>();
  const heldNp = new Map<string, number>();
  let schedulableGpus = 0;
  for (let i = 0; i < board.count; i++) if (board.schedulable[i]) schedulableGpus += board.nodes[i]!.gpuCount;
  for (const id of leaves) capOf.set(id, Math.floor((eff.get(id) ?? 0) * schedulableGpus));
  for (const js of states.values()) {
    if (js.charged && !js.stopping) heldNp.set(js.job.budgetId, (heldNp.get(js.job.budgetId) ?? 0) + js.job.gpus);
  }

  const pendingAll = snapshot.pending;
  // One sort with a total order (ids last): the result does not depend on the input order, and an
  // input already close to that order (the usual case) sorts in linear time.
  const order = pendingAll
    .filter((p) => !p.held)
    .sort((a, b) =>
      kind === "priority"
        ? b.priority - a.priority || a.submittedAt - b.submittedAt || compareById(a, b)
        : a.submittedAt - b.submittedAt || compareById(a, b),
    );

  const reserved = new Set<number>();
  let reservation: { job: PendingJob; nodes: number[] } | null = null;
  const startedIds = new Set<string>();
  let started = 0;
  let startedGpus = 0;
  let preempted = 0;
  let preemptedGpus = 0;
  const allow = (node: number): boolean => !reserved.has(node);
  let freeFailAt = Infinity;
  // Failed victim searches of non-preemptible-class jobs (they may take any preemptible run).
  const victimFailAt = { np: Infinity, p: Infinity };
  let minPreemptiblePriority = Infinity;
  for (const js of states.values())
    if (!js.charged && !js.stopping) minPreemptiblePriority = Math.min(minPreemptiblePriority, js.job.priority);

  const start = (p: PendingJob, slots: Slots, charged: boolean, victims: JobState[], position: number): void => {
    const lane: JobLane = isDebugLane(p, policy) ? "DEBUG" : charged ? "ALLOCATED" : "UNALLOCATED";
    let startBy = now;
    for (const v of victims) startBy = Math.max(startBy, v.exitBy);
    const placement = slots.map((s) => ({ nodeId: board.nodes[s.node]!.id, gpuIndexes: s.gpus }));
    const job: RunningJob = { ...p, startedAt: startBy, placement, charged, stopping: null };
    const protectedUntil = kind === "priority" ? (charged ? NEVER : startBy) : charged ? startBy + p.minRuntime : startBy;
    const js: JobState = {
      job,
      budget: -1,
      charged,
      debug: lane === "DEBUG",
      protectedUntil,
      maxEnd: p.maxRuntime === null ? Infinity : startBy + p.maxRuntime,
      stopping: false,
      exitBy: now,
      isNew: true,
      gone: false,
      slots,
    };
    const waits = board.occupy(js);
    const op: StartOp = {
      op: "START",
      jobId: p.id,
      budgetId: p.budgetId,
      userId: p.userId,
      gpus: p.gpus,
      placement,
      charged,
      lane,
      afterExitOf: waits.map((w) => w.job.id).sort(),
      startBy,
      protectedUntil,
      reason: {
        code: victims.length > 0 ? "PREEMPTED_UNALLOCATED" : reservation ? "BACKFILL" : "FREE_GPUS",
        sentence: `Started ${p.id} (${kind} baseline, position ${position}) on ${plural(slots.length, "node")}.`,
        position,
        ratio: 0,
      },
    };
    plan.push(op);
    startedIds.add(p.id);
    started++;
    startedGpus += p.gpus;
    if (charged) heldNp.set(p.budgetId, (heldNp.get(p.budgetId) ?? 0) + p.gpus);
  };

  order.forEach((p, i) => {
    const position = i + 1;
    // priority: non-preemptible when asked for and within the team's cap; fifo: SPEC §2 charging.
    const charged =
      kind === "priority"
        ? p.minRuntime > 0 && entitled(p.budgetId) && (heldNp.get(p.budgetId) ?? 0) + p.gpus <= (capOf.get(p.budgetId) ?? 0)
        : p.minRuntime > 0 && entitled(p.budgetId);
    // Starts only take GPUs, so once a size failed on free GPUs every size >= it fails too.
    if (p.gpus < freeFailAt) {
      const free = findFreePlacement(board, p.gpus, allow);
      if (free) {
        start(p, free, charged, [], position);
        return;
      }
      freeFailAt = p.gpus;
    }
    // Cheap exact bounds before a victim search: could it fit if every preemptible run left, and
    // is there any preemptible run it outranks?
    if (
      kind === "priority" &&
      p.gpus < (charged ? victimFailAt.np : victimFailAt.p) &&
      (charged || p.priority > minPreemptiblePriority) &&
      board.couldFit(p.gpus, 0)
    ) {
      const choice = findPriorityVictims(board, p, charged, allow, now);
      if (!choice) {
        if (charged) victimFailAt.np = Math.min(victimFailAt.np, p.gpus);
      }
      if (choice) {
        for (const v of choice.victims) {
          const grace = gracePeriodFor(v.job, v.charged, policy);
          v.exitBy = now + grace;
          const op: PreemptOp = {
            op: "PREEMPT",
            jobId: v.job.id,
            budgetId: v.job.budgetId,
            gpus: v.job.gpus,
            byJobId: p.id,
            reasonCode: "UNALLOCATED_FOR_ALLOCATED",
            sentence: `Preempted ${v.job.id} (preemptible, priority ${v.job.priority}) for ${p.id} (priority ${p.priority}${charged ? ", non-preemptible" : ""}).`,
            gracePeriod: grace,
            graceUntil: now + grace,
            requeue: requeueAfterPreemption(v.job),
            lostGpuSeconds: v.job.gpus * Math.max(0, now - v.job.startedAt),
            details: { victimRatio: 0, preemptorRatio: null, nodeIds: v.slots.map((s) => board.nodes[s.node]!.id) },
          };
          plan.push(op);
          board.vacate(v);
          freeFailAt = Infinity; // a victim may leave GPUs free beyond what the job takes
          preempted++;
          preemptedGpus += v.job.gpus;
        }
        const slots = findFreePlacement(board, p.gpus, (n) => choice.nodes.includes(n));
        if (slots) {
          start(p, slots, charged, choice.victims, position);
          return;
        }
      }
    }
    if (!reservation) {
      const nodes = reserveNodes(board, p.gpus);
      if (nodes) {
        reservation = { job: p, nodes };
        for (const n of nodes) reserved.add(n);
      }
    }
  });

  const pending = new Map<string, PendingReason>();
  const largestFree = board.largestFree();
  const fitsAnywhere = (gpus: number): boolean =>
    gpus <= board.size ? gpus <= largestFree : board.buckets[board.size]!.length >= gpus / board.size;
  const schedulableNodes = board.schedulable.filter(Boolean).length;
  let blockedAllocated = 0;
  order.forEach((p, i) => {
    if (startedIds.has(p.id)) return;
    if (p.minRuntime > 0 && entitled(p.budgetId)) blockedAllocated++;
    const details = {
      position: i + 1,
      jobsAhead: i,
      ratio: 0,
      gpus: p.gpus,
      largestFreeGpus: largestFree,
      earliestStart: null,
    };
    const r = reservation as { job: PendingJob; nodes: number[] } | null;
    if (schedulableNodes === 0) {
      pending.set(p.id, { code: "CLUSTER_DRAINING", sentence: `No node of the cluster takes new work.`, details });
    } else if (r && r.job.id !== p.id && fitsAnywhere(p.gpus)) {
      pending.set(p.id, {
        code: "RESERVED_FOR",
        sentence: `Free GPUs are reserved for ${r.job.id}); ${plural(i, "job")} ahead (${kind} baseline).`,
        details: { ...details, reservedForJobId: r.job.id, reservedFrom: now },
      });
    } else {
      pending.set(p.id, {
        code: "CAPACITY",
        sentence: `Needs ${p.gpus} GPUs; the largest free block is ${largestFree}; ${plural(i, "job")} ahead (${kind} baseline, waiting ${formatDuration(now - p.submittedAt)}).`,
        details,
      });
    }
  });
  for (const p of pendingAll) {
    if (p.held)
      pending.set(p.id, {
        code: "HELD",
        sentence: `Held.`,
        details: { position: null, jobsAhead: 0, ratio: 0, gpus: p.gpus, largestFreeGpus: largestFree, earliestStart: null },
      });
  }

  const ratios: TreeNodeRatio[] = [...snapshot.tree].sort(compareById).map((n) => {
    const e = n.entitlementGpuSeconds;
    const ratio = e > 0 ? n.usageGpuSeconds / e : Infinity;
    return {
      treeNodeId: n.id,
      name: n.name,
      parentId: n.parentId,
      effectiveAllocation: eff.get(n.id) ?? 0,
      usageGpuSeconds: n.usageGpuSeconds,
      entitlementGpuSeconds: e,
      ratio,
      heldGpus: heldNp.get(n.id) ?? 0,
      projectedRatio: ratio,
      projectedRatioAfter: ratio,
    };
  });

  let totalGpus = 0;
  for (const n of board.nodes) totalGpus += n.gpuCount;
  const stats: CycleStats = {
    nodes: board.count,
    schedulableNodes,
    totalGpus,
    schedulableGpus,
    idleGpusAfter: board.idleGpus(),
    running: snapshot.running.length,
    pending: snapshot.pending.length,
    started,
    startedGpus,
    preempted: preempted + nodePlan.drained.size,
    preemptedGpus,
    // Baselines only run in the simulator, whose engine stops jobs at their maxRuntime itself.
    killed: 0,
    lost: nodePlan.lost.size,
    reservations: reservation ? 1 : 0,
    blockedAllocated,
    preemptionSearches: 0,
  };
  const res = reservation as { job: PendingJob; nodes: number[] } | null;
  return {
    now,
    clusterId: snapshot.cluster.id,
    plan,
    order: order.map((p) => p.id),
    pending: new PendingReasons([...pending.keys()], [...pending.values()]),
    ratios,
    reservations: res
      ? [{ jobId: res.job.id, gpus: res.job.gpus, nodeIds: res.nodes.map((n) => board.nodes[n]!.id), from: now }]
      : [],
    stats,
  };
}

/**
 * Nodes to hold for the first blocked job: for a job up to a node, the schedulable node with the
 * most free GPUs (ties: node order); for a larger one, the `gpus / size` whole-size nodes with the
 * most free GPUs. They stay closed to other jobs until it starts (no runtime estimates here).
 */
function reserveNodes(board: NodeBoard, gpus: number): number[] | null {
  const cands: number[] = [];
  for (let n = 0; n < board.count; n++) {
    if (!board.schedulable[n]) continue;
    if (gpus <= board.size ? board.nodes[n]!.gpuCount >= gpus : board.nodes[n]!.gpuCount === board.size) cands.push(n);
  }
  const need = gpus <= board.size ? 1 : gpus % board.size === 0 ? gpus / board.size : Infinity;
  if (cands.length < need) return null;
  cands.sort((a, b) => board.free[b]! - board.free[a]! || a - b);
  return cands.slice(0, need).sort((a, b) => a - b);
}

/**
 * Priority-baseline victims: preemptible runs (not charged, not leaving, not started this cycle,
 * already launched) that the pending job outranks. Fewest victims, then least work lost, then node
 * order. Whole nodes for multi-node jobs.
 */
function findPriorityVictims(
  board: NodeBoard,
  p: PendingJob,
  nonPreemptible: boolean,
  allow: (node: number) => boolean,
  now: number,
): { nodes: number[]; victims: JobState[] } | null {
  const eligible = (v: JobState): boolean =>
    !v.charged && !v.stopping && !v.gone && !v.isNew && v.job.startedAt <= now && (nonPreemptible || v.job.priority < p.priority);
  const lost = (v: JobState): number => v.job.gpus * Math.max(0, now - v.job.startedAt);
  const onNode = (v: JobState, node: number): number => {
    let g = 0;
    for (const s of v.slots) if (s.node === node) g += s.gpus.length;
    return g;
  };
  type Option = { node: number; victims: JobState[]; lost: number };
  const better = (a: Option, b: Option): boolean =>
    a.victims.length !== b.victims.length
      ? a.victims.length < b.victims.length
      : a.lost !== b.lost
        ? a.lost < b.lost
        : a.node < b.node;
  if (p.gpus <= board.size) {
    let best: Option | null = null;
    for (let node = 0; node < board.count; node++) {
      if (!board.schedulable[node] || !allow(node) || board.nodes[node]!.gpuCount < p.gpus) continue;
      const cands = board.jobsOn[node]!.filter(eligible);
      if (cands.length === 0) continue;
      cands.sort(
        (a, b) =>
          onNode(b, node) - onNode(a, node) || a.job.priority - b.job.priority || lost(a) - lost(b) || compareById(a.job, b.job),
      );
      const chosen: JobState[] = [];
      let have = board.free[node]!;
      for (const c of cands) {
        if (have >= p.gpus) break;
        chosen.push(c);
        have += onNode(c, node);
      }
      if (have < p.gpus || board.free[node]! + board.freedBy(node, chosen) < p.gpus) continue;
      const o: Option = { node, victims: chosen, lost: chosen.reduce((s, v) => s + lost(v), 0) };
      if (!best || better(o, best)) best = o;
    }
    return best ? { nodes: [best.node], victims: best.victims } : null;
  }
  if (p.gpus % board.size !== 0) return null;
  const need = p.gpus / board.size;
  const options: Option[] = [];
  for (let node = 0; node < board.count; node++) {
    if (!board.schedulable[node] || !allow(node) || board.nodes[node]!.gpuCount !== board.size) continue;
    const on = board.jobsOn[node]!.filter((v) => !v.gone);
    if (!on.every(eligible)) continue;
    options.push({ node, victims: on, lost: on.reduce((s, v) => s + lost(v), 0) });
  }
  if (options.length < need) return null;
  options.sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
  const picked = options.slice(0, need);
  const victims: JobState[] = [];
  for (const o of picked) for (const v of o.victims) if (!victims.includes(v)) victims.push(v);
  if (victims.length === 0) return null;
  return { nodes: picked.map((o) => o.node).sort((a, b) => a - b), victims };
}

/** The `priority` baseline: static priorities, per-team caps on non-preemptible jobs. */
export function runPriorityCycle(snapshot: ClusterSnapshot, policy: PolicyConfig, now: number): CycleResult {
  return runBaselineCycle("priority", snapshot, policy, now);
}

/** The `fifo` baseline: first-come first-served with backfill around one reservation. */
export function runFifoCycle(snapshot: ClusterSnapshot, policy: PolicyConfig, now: number): CycleResult {
  return runBaselineCycle("fifo", snapshot, policy, now);
}
