/**
 * The virtual-time event loop. It owns no policy: every decision comes from the cycle function
 * (the core's runCycle for `fairshare`, the core's baselines for `priority` and `fifo`). The loop:
 *
 *   1. pop every event with the earliest time t (submits, stops, launches, node events, timeouts,
 *      protection ends), apply them to the simulated world in a fixed order;
 *   2. for each cluster they touched, build the snapshot (window aggregates maintained
 *      incrementally) and run one cycle at t;
 *   3. apply the plan: NODE_STATE, LOST, PREEMPT (SIGTERM now, the job's processes end at
 *      graceUntil), START (the job holds its GPUs now and launches at startBy);
 *   4. record what the measures need (run segments, node intervals, hourly demand) and the events.
 *
 * Work model: a job needs `duration` seconds of work. A resumable job checkpoints every
 * `checkpointInterval` seconds of work; preempted or lost, it keeps the work up to its last
 * checkpoint and pays `restartOverhead` when it launches again. A non-resumable job loses
 * everything. Work stops at SIGTERM; the GPUs are freed at graceUntil (or when the job finishes,
 * if that is earlier). At maxRuntime after its launch a cycle runs and the core KILLs the job (SIGTERM;
 * it ends at the end of its grace, or when its work finishes if that is earlier), as in the worker.
 */
import type { ForecastMeter } from "./forecast-meter.js";
import type {
  BudgetTreeNode,
  PreemptionRecord,
  RunSegment,
  ClusterSnapshot,
  CycleResult,
  Node,
  PendingJob,
  PlanOp,
  PolicyConfig,
  PreemptOp,
  KillOp,
  Reservation,
  RunningJob,
  StartOp,
} from "@tranche/scheduler-core";
import { isMove, nodeStateAfterReport, PendingBacklog, runOutcome, startedRun } from "@tranche/scheduler-core";
import { EventQueue } from "./event-queue.js";
import type { EventSink, StopCause } from "./events-log.js";
import { MeasureRecorder } from "./recorder.js";
import type { BudgetSpec, ClusterSpec, NodeEventSpec, Scenario, SimJob } from "./types.js";
import { WindowIntegral } from "./window-integral.js";

export type CycleFn = (snapshot: ClusterSnapshot, policy: PolicyConfig, now: number) => CycleResult;
/**
 * Makes the cycle function of one cluster, called once per cluster: a policy that keeps working
 * state between a cluster's cycles (the core's createScheduler) gets one per cluster.
 */
export type NewCycle = () => CycleFn;

const PPM = 1_000_000;
/** Tree id of the root of every budget tree (its name stays the scenario's). */
export const ROOT_ID = "/";

type JobPhase = "future" | "pending" | "running" | "done";

interface JobState {
  readonly spec: SimJob;
  readonly cluster: ClusterState;
  phase: JobPhase;
  /** Bumped on every start and stop: timed events of an older run are ignored. */
  gen: number;
  /** Work saved by checkpoints, seconds. */
  saved: number;
  /** Launches so far (a relaunch of a resumable job pays restartOverhead). */
  launches: number;
  /** Submit time, or the time of the latest requeue: queue wait counts from here. */
  queuedAt: number;
  requeuedAt: number | null;
  pending: PendingJob | null;
  running: RunningJob | null;
  /** Current run: launch time (null while it waits for its victims), overhead, SIGTERM time. */
  launchedAt: number | null;
  overhead: number;
  sigtermAt: number | null;
  charged: boolean;
  protectedUntil: number;
  /** Set by a PREEMPT op: what the stop will be called. */
  stopCause: StopCause | null;
  requeueOnStop: boolean;
  completed: boolean;
  /** The current run's segment (measures) and the latest preemption, to note when it restarts. */
  segment: RunSegment | null;
  lastPreemption: PreemptionRecord | null;
  /**
   * R12: set by a CONSOLIDATION preemption that will really stop the job; its START (a move) then
   * makes `moveTo`: the new run, already holding its GPUs, launches when the old copy stops.
   */
  movable: boolean;
  moveTo: StartOp | null;
}

interface NodeState {
  readonly node: Node;
  /** The agent went silent at this time (nodeEvents `down`); null while it reports. */
  silentSince: number | null;
  /** An operator drained it (nodeEvents `maintenance`): its repair ends with the next `healthy` event. */
  manualDrain: boolean;
}

interface ClusterState {
  readonly index: number;
  readonly spec: ClusterSpec;
  readonly nodes: NodeState[];
  readonly nodeById: Map<string, NodeState>;
  /** The nodes in the core's order, (name, id): its per-cycle sorts then find them sorted. */
  readonly nodeList: Node[];
  readonly tree: BudgetTreeNode[];
  readonly treeIndex: Map<string, number>;
  /** For every tree node: its effective allocation. */
  readonly effective: number[];
  readonly usage: Map<string, WindowIntegral>;
  /**
   * The usage integrals in `usage`'s order, and per tree node the places there of its leaves (in
   * tree order; -1 for a leaf with none, the root alone), with one scratch array for a cycle's
   * integrals: each cycle sums them without a map or a lookup by id.
   */
  readonly usageList: WindowIntegral[];
  readonly leafUsageAt: number[][];
  readonly usageNow: number[];
  readonly capacity: WindowIntegral;
  /**
   * Running and pending jobs as the arrays the snapshot passes. The running array is kept in id order
   * and changed in place, each run never edited (a run that starts leaving or moves is replaced:
   * markStopping, move), the pending jobs are the core's PendingBacklog (in queue order, changed in
   * place through add and remove, which it journals for the scheduler's admission; a job is never
   * edited: a requeue is a new object, toPending), the node and tree arrays are the same every cycle:
   * what the core's createScheduler needs to keep its board, node order, tree shape and admission (see
   * its doc comment).
   */
  readonly running: IdSortedList<RunningJob>;
  readonly pending: PendingBacklog;
  drainingNodes: number;
  snapshotCluster: ClusterSnapshot["cluster"];
  /** This cluster's cycle function (SimulateOptions.cycle). */
  readonly cycle: CycleFn;
  /** The previous cycle's reservations, passed back in the next snapshot (see ClusterSnapshot). */
  reservations: Reservation[];
  /** Jobs that reached their maxRuntime since the last cycle: the next cycle must run (its KILLs). */
  expiring: number;
}

/** Kinds of timed events; the number is the order inside one timestamp. */
const K = { STOP: 0, NODE: 1, HEARTBEAT: 2, LAUNCH: 3, SUBMIT: 4, WAKE: 5, EXPIRE: 6 } as const;
type QItem =
  | { k: typeof K.STOP; job: JobState; gen: number; cause: StopCause }
  | { k: typeof K.NODE; ev: NodeEventSpec }
  | { k: typeof K.HEARTBEAT; cluster: ClusterState }
  | { k: typeof K.LAUNCH; job: JobState; gen: number }
  | { k: typeof K.SUBMIT; job: JobState }
  | { k: typeof K.WAKE; job: JobState; gen: number }
  | { k: typeof K.EXPIRE; job: JobState; gen: number };

export interface SimulationOutput {
  readonly recorder: MeasureRecorder;
  readonly end: number;
  readonly cycles: number;
  readonly cycleMs: number;
  /** Cycles not run because they could not change anything (see Simulation.idle). */
  readonly skippedCycles: number;
  readonly submitted: number;
  readonly completed: number;
}

export interface SimulateOptions {
  readonly cycle: NewCycle;
  readonly policy: PolicyConfig;
  readonly sink: EventSink;
  /** Measure the core's start forecast (costly: a forecast per cycle with newly queued jobs). */
  readonly forecast?: ForecastMeter;
}

export function simulate(scenario: Scenario, opts: SimulateOptions): SimulationOutput {
  return new Simulation(scenario, opts).run();
}

/** The core's node order (its compareByNameThenId). */
function byNameThenId(a: Node, b: Node): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return 0;
}

/** Allocation fractions -> exact ppm; rounding never makes siblings exceed 100%. */
function toPpm(children: readonly BudgetSpec[], cluster: string): number[] {
  const ppm = children.map((c) => Math.round((c.allocation[cluster] ?? 0) * PPM));
  let sum = ppm.reduce((s, v) => s + v, 0);
  while (sum > PPM) {
    let max = 0;
    for (let i = 1; i < ppm.length; i++) if (ppm[i]! > ppm[max]!) max = i;
    const cut = Math.min(ppm[max]!, sum - PPM);
    ppm[max] = ppm[max]! - cut;
    sum -= cut;
  }
  return ppm;
}

class Simulation {
  private readonly q = new EventQueue<QItem>();
  private readonly clusters: ClusterState[];
  private readonly clusterByName = new Map<string, ClusterState>();
  private readonly jobs = new Map<string, JobState>();
  readonly recorder: MeasureRecorder;
  private now = 0;
  private cycles = 0;
  private cycleMs = 0;
  private skippedCycles = 0;
  private completed = 0;

  constructor(
    private readonly scenario: Scenario,
    private readonly opts: SimulateOptions,
  ) {
    this.clusters = scenario.clusters.map((spec, index) => this.buildCluster(spec, index));
    for (const c of this.clusters) this.clusterByName.set(c.spec.name, c);
    this.recorder = new MeasureRecorder(
      this.clusters.map((c) => ({
        name: c.spec.name,
        totalGpus: c.spec.nodes * c.spec.gpusPerNode,
        leaves: new Map([...c.usage.keys()].map((id) => [id, c.effective[c.treeIndex.get(id)!]!])),
      })),
      opts.policy,
    );
  }

  private buildCluster(spec: ClusterSpec, index: number): ClusterState {
    const nodes: NodeState[] = [];
    for (let i = 0; i < spec.nodes; i++) {
      const name = `${spec.name}-${i}`;
      nodes.push({
        node: { id: name, name, gpuCount: spec.gpusPerNode, state: "READY", health: "HEALTHY", lastHeartbeatAt: null },
        silentSince: null,
        manualDrain: false,
      });
    }
    const tree: BudgetTreeNode[] = [];
    const leafIdsOf: string[][] = [];
    const effective: number[] = [];
    const walk = (b: BudgetSpec, id: string, parentId: string | null, ppm: number, eff: number): string[] => {
      const at = tree.length;
      tree.push({ id, name: b.name, parentId, allocationPpm: ppm, usageGpuSeconds: 0, entitlementGpuSeconds: 0 });
      effective.push(eff);
      leafIdsOf.push([]);
      if (b.children.length === 0) {
        leafIdsOf[at] = [id];
        return [id];
      }
      const childPpm = toPpm(b.children, spec.name);
      const leaves: string[] = [];
      b.children.forEach((c, i) => {
        const cid = parentId === null ? c.name : `${id}/${c.name}`;
        leaves.push(...walk(c, cid, id, childPpm[i]!, (eff * childPpm[i]!) / PPM));
      });
      leafIdsOf[at] = leaves;
      return leaves;
    };
    walk(this.scenario.budgets, ROOT_ID, null, PPM, 1);
    const treeIndex = new Map(tree.map((n, i) => [n.id, i]));
    const usage = new Map<string, WindowIntegral>();
    for (const n of tree)
      if (leafIdsOf[treeIndex.get(n.id)!]![0] === n.id && n.id !== ROOT_ID) usage.set(n.id, new WindowIntegral(0));
    const usageIds = [...usage.keys()];
    const leafUsageAt = leafIdsOf.map((leaves) => leaves.map((id) => usageIds.indexOf(id)));
    return {
      index,
      spec,
      nodes,
      nodeById: new Map(nodes.map((n) => [n.node.id, n])),
      nodeList: nodes.map((n) => n.node).sort(byNameThenId),
      tree,
      treeIndex,
      effective,
      usage,
      usageList: [...usage.values()],
      leafUsageAt,
      usageNow: usageIds.map(() => 0),
      capacity: new WindowIntegral(0, spec.nodes * spec.gpusPerNode),
      running: new IdSortedList(),
      pending: new PendingBacklog(),
      drainingNodes: 0,
      reservations: [],
      expiring: 0,
      cycle: this.opts.cycle(),
      snapshotCluster: { id: spec.name, name: spec.name, gpuType: spec.gpuType, maxMinRuntime: null },
    };
  }

  run(): SimulationOutput {
    for (const spec of this.scenario.jobs) {
      const cluster = this.clusterByName.get(spec.cluster)!;
      const job: JobState = {
        spec,
        cluster,
        phase: "future",
        gen: 0,
        saved: 0,
        launches: 0,
        queuedAt: spec.submit,
        requeuedAt: null,
        pending: null,
        running: null,
        launchedAt: null,
        overhead: 0,
        sigtermAt: null,
        charged: false,
        protectedUntil: 0,
        stopCause: null,
        requeueOnStop: false,
        completed: false,
        segment: null,
        lastPreemption: null,
        movable: false,
        moveTo: null,
      };
      this.jobs.set(spec.id, job);
      this.q.push(spec.submit, { k: K.SUBMIT, job });
    }
    for (const ev of this.scenario.nodeEvents) this.q.push(ev.t, { k: K.NODE, ev });

    const until = this.scenario.simulation.until ?? Infinity;
    const batch: { t: number; item: QItem }[] = [];
    const dirty = new Set<ClusterState>();
    while (this.q.size > 0 && this.q.peekTime() <= until) {
      const t = this.q.peekTime();
      batch.length = 0;
      while (this.q.peekTime() === t) batch.push(this.q.pop()!);
      // Stable: the heap already orders equal times by insertion; then by kind.
      batch.sort((a, b) => a.item.k - b.item.k);
      this.advance(t);
      for (const { item } of batch) this.apply(item, dirty);
      for (const c of this.clusters) {
        if (!dirty.has(c)) continue;
        dirty.delete(c);
        this.runCycleOn(c);
      }
    }
    const end = this.scenario.simulation.until ?? this.now;
    this.advance(end);
    this.recorder.finish(end);
    for (const job of this.jobs.values())
      if (job.phase === "pending") this.recorder.stillWaiting(job.cluster.index, job.spec, job.queuedAt);
    return {
      recorder: this.recorder,
      end,
      cycles: this.cycles,
      cycleMs: this.cycleMs,
      skippedCycles: this.skippedCycles,
      submitted: this.scenario.jobs.length,
      completed: this.completed,
    };
  }

  private advance(t: number): void {
    if (t > this.now) this.now = t;
  }

  private apply(item: QItem, dirty: Set<ClusterState>): void {
    switch (item.k) {
      case K.SUBMIT: {
        const job = item.job;
        this.opts.sink.emit({ t: this.now, type: "submit", job: job.spec.id, budget: job.spec.budget, gpus: job.spec.gpus });
        this.toPending(job, null);
        dirty.add(job.cluster);
        return;
      }
      case K.STOP:
        if (item.job.gen !== item.gen || item.job.phase !== "running") return;
        this.stop(item.job, item.cause);
        dirty.add(item.job.cluster);
        return;
      case K.LAUNCH:
        if (item.job.gen !== item.gen || item.job.phase !== "running") return;
        this.launch(item.job);
        return;
      case K.WAKE: {
        const c = item.job.cluster;
        if (item.job.gen !== item.gen || item.job.phase !== "running") return;
        // Protection ended: it only changes a decision when something waits or a node drains.
        if (c.pending.items.length > 0 || c.drainingNodes > 0) dirty.add(c);
        return;
      }
      case K.EXPIRE: {
        // maxRuntime reached: the cycle's KILL op stops it (a job already told to stop is left alone).
        const job = item.job;
        if (job.gen !== item.gen || job.phase !== "running" || job.sigtermAt !== null) return;
        job.cluster.expiring++;
        dirty.add(job.cluster);
        return;
      }
      case K.HEARTBEAT:
        dirty.add(item.cluster);
        return;
      case K.NODE:
        this.nodeEvent(item.ev, dirty);
        return;
    }
  }

  private nodeEvent(ev: NodeEventSpec, dirty: Set<ClusterState>): void {
    const clusterName = ev.node.slice(0, ev.node.lastIndexOf("-"));
    const c = this.clusterByName.get(clusterName)!;
    const ns = c.nodeById.get(ev.node)!;
    const n = ns.node;
    switch (ev.health) {
      case "unhealthy":
        n.health = "UNHEALTHY";
        this.capacityChanged(c, ns);
        break;
      case "healthy": {
        // A healthy report that also ends an operator's maintenance; the transition is the core's rule
        // (nodeStateAfterReport), the same as the agent protocol's.
        const heardFrom = n.lastHeartbeatAt !== null;
        n.health = "HEALTHY";
        this.capacityChanged(c, ns);
        ns.silentSince = null;
        ns.manualDrain = false;
        n.lastHeartbeatAt = null;
        const to = nodeStateAfterReport({ state: n.state, heardFrom, manualDrain: false }, true);
        if (to !== null) this.setNodeState(c, ns, to);
        break;
      }
      case "maintenance":
        ns.manualDrain = true;
        if (n.state === "READY" || n.state === "CORDONED") this.setNodeState(c, ns, "DRAINING");
        break;
      case "down":
        ns.silentSince = this.now;
        n.lastHeartbeatAt = this.now;
        this.q.push(this.now + this.opts.policy.heartbeatTimeout + 1, { k: K.HEARTBEAT, cluster: c });
        break;
    }
    dirty.add(c);
  }

  private setNodeState(c: ClusterState, ns: NodeState, to: Node["state"]): void {
    const from = ns.node.state;
    if (from === to) return;
    if (from === "DRAINING") c.drainingNodes--;
    if (to === "DRAINING") c.drainingNodes++;
    ns.node.state = to;
    this.capacityChanged(c, ns);
    this.opts.sink.emit({ t: this.now, type: "node", node: ns.node.id, state: to });
  }

  /** Healthy capacity (measures and entitlement) follows the node's state and health. */
  private capacityChanged(c: ClusterState, ns: NodeState): void {
    this.recorder.nodeChanged(c.index, ns.node, this.now);
    c.capacity.setRate(this.now, this.recorder.healthyGpus(c.index));
  }

  private toPending(job: JobState, requeuedAt: number | null): void {
    const s = job.spec;
    job.phase = "pending";
    job.requeuedAt = requeuedAt;
    job.queuedAt = requeuedAt ?? s.submit;
    job.pending = {
      id: s.id,
      budgetId: s.budget,
      userId: s.user,
      submittedAt: s.submit,
      requeuedAt,
      held: false,
      gpus: s.gpus,
      minRuntime: s.minRuntime,
      maxRuntime: s.maxRuntime,
      priority: s.priority,
      resumable: s.resumable,
      requeueOnPreempt: false,
      gracePeriod: null,
    };
    job.cluster.pending.add(job.pending);
    this.opts.forecast?.queued(s.id);
    if (requeuedAt === null) this.recorder.demand(job.cluster.index, s, this.now, +1);
  }

  /** Refreshes the tree's window aggregates and runs one cycle; applies its plan. */
  private runCycleOn(c: ClusterState): void {
    const now = this.now;
    const policy = this.opts.policy;
    const expiring = c.expiring;
    c.expiring = 0;
    if (expiring === 0 && this.idle(c, now)) {
      // What the cycle would have recorded: nothing blocked, so no blocked idle GPUs.
      this.skippedCycles++;
      c.reservations = []; // with no pending job a cycle reserves nothing
      this.recorder.cycle(c.index, now, 0);
      return;
    }
    const from = now - policy.lookbackWindow;
    // Entitlement: effective allocation x healthy capacity over the window, with SPEC §2's young
    // window rule (the same formula as the core's computeEntitlements, incrementally).
    let capSeconds = c.capacity.integral(from, now);
    const elapsed = now - Math.max(0, from);
    if (0 > from && elapsed < policy.projectionHorizon) capSeconds += c.capacity.rate * (policy.projectionHorizon - elapsed);
    const leafUsage = c.usageNow;
    for (let j = 0; j < c.usageList.length; j++) leafUsage[j] = c.usageList[j]!.integral(from, now);
    for (let i = 0; i < c.tree.length; i++) {
      const n = c.tree[i]!;
      n.entitlementGpuSeconds = Math.round(c.effective[i]! * capSeconds);
      let u = 0;
      // In the leaves' order, as the sum by id added them (the same floating-point total).
      for (const at of c.leafUsageAt[i]!) u += at < 0 ? 0 : leafUsage[at]!;
      n.usageGpuSeconds = u;
    }
    // The live arrays: runCycle is pure and never mutates its input (R11).
    const snapshot: ClusterSnapshot = {
      cluster: c.snapshotCluster,
      nodes: c.nodeList,
      tree: c.tree,
      running: c.running.items,
      pending: c.pending.items as PendingJob[],
      reservations: c.reservations,
      backlog: c.pending,
    };

    this.opts.forecast?.beforeCycle(snapshot, policy, now);
    const t0 = performance.now();
    const result = c.cycle(snapshot, policy, now);
    this.cycleMs += performance.now() - t0;
    this.cycles++;
    c.reservations = result.reservations;
    for (const op of result.plan) this.applyOp(c, op);
    this.recorder.cycle(c.index, now, result.stats.blockedAllocated > 0 ? result.stats.idleGpusAfter : 0);
  }

  /**
   * A cycle that cannot change anything: no pending job (so no start, reservation or preemption for
   * one), and every node READY or CORDONED, healthy and not silent past the heartbeat timeout (so no
   * node transition, no lost job and no drain). The core's runCycle and both baselines then return
   * an empty plan with nothing blocked; the cycle is skipped (its snapshot is not even built).
   */
  private idle(c: ClusterState, now: number): boolean {
    if (c.pending.items.length > 0) return false;
    const timeout = this.opts.policy.heartbeatTimeout;
    for (const n of c.nodeList) {
      if (n.state !== "READY" && n.state !== "CORDONED") return false;
      if (n.health !== "HEALTHY") return false;
      if (n.lastHeartbeatAt !== null && now - n.lastHeartbeatAt > timeout) return false;
    }
    return true;
  }

  private applyOp(c: ClusterState, op: PlanOp): void {
    switch (op.op) {
      case "NODE_STATE": {
        const ns = c.nodeById.get(op.nodeId);
        if (!ns) return;
        this.setNodeState(c, ns, op.to);
        // A drained node that already reports healthy again (and is not an operator's) leaves REPAIR
        // with its next heartbeat: at once in virtual time.
        const n = ns.node;
        if (n.health === "HEALTHY" && ns.silentSince === null) {
          const to = nodeStateAfterReport({ state: n.state, heardFrom: true, manualDrain: ns.manualDrain }, true);
          if (to === "READY" && n.state === "REPAIR") this.setNodeState(c, ns, to);
        }
        return;
      }
      case "LOST": {
        const job = this.jobs.get(op.jobId);
        if (!job || job.phase !== "running") return;
        job.sigtermAt = this.now;
        job.requeueOnStop = op.requeue;
        this.stop(job, "lost");
        return;
      }
      case "KILL":
        this.kill(op);
        return;
      case "PREEMPT":
        this.preempt(op);
        return;
      case "START":
        this.start(c, op);
        return;
      case "RESERVE":
        return;
    }
  }

  private preempt(op: PreemptOp): void {
    const job = this.jobs.get(op.jobId);
    if (job && job.phase === "running" && job.moveTo !== null) return this.preemptMoving(job, op);
    if (!job || job.phase !== "running" || job.sigtermAt !== null) return;
    this.markStopping(job, { byJobId: op.byJobId, graceUntil: op.graceUntil });
    job.sigtermAt = this.now;
    job.requeueOnStop = op.requeue;
    const move = op.reasonCode === "CONSOLIDATION";
    job.lastPreemption = this.recorder.preempted(job.cluster.index, job.spec, this.now, job.launchedAt, op.reasonCode);
    this.opts.sink.emit({
      t: this.now,
      type: "preempt",
      job: job.spec.id,
      budget: job.spec.budget,
      gpus: job.spec.gpus,
      by: op.byJobId,
      reason: op.reasonCode,
      graceUntil: op.graceUntil,
    });
    job.gen++;
    if (job.launchedAt === null) {
      // Preempted before it launched (it was waiting for its own victims): nothing to wind down.
      this.stop(job, "preempt");
      return;
    }
    const finishAt = job.launchedAt + job.overhead + (job.spec.duration - job.saved);
    if (finishAt <= op.graceUntil) {
      // It completes inside its grace period: work goes on until it finishes.
      job.sigtermAt = null;
      this.q.push(finishAt, { k: K.STOP, job, gen: job.gen, cause: "finish" });
    } else if (op.graceUntil <= this.now) this.stop(job, "preempt");
    else {
      job.movable = move;
      this.q.push(op.graceUntil, { k: K.STOP, job, gen: job.gen, cause: "preempt" });
    }
  }

  /**
   * A moved job (R12) preempted while its old copy still winds down: the core sees only the new run,
   * which has not launched yet, and lets its preemptor start once that run is gone. The new run never
   * launches: when the old copy stops, the job ends as this preemption says (requeued or not), so the
   * GPUs its preemptor was promised are never held twice.
   */
  private preemptMoving(job: JobState, op: PreemptOp): void {
    job.moveTo = null;
    this.markStopping(job, { byJobId: op.byJobId, graceUntil: op.graceUntil });
    job.requeueOnStop = op.requeue;
    job.lastPreemption = this.recorder.preempted(job.cluster.index, job.spec, this.now, null, op.reasonCode);
    this.opts.sink.emit({
      t: this.now,
      type: "preempt",
      job: job.spec.id,
      budget: job.spec.budget,
      gpus: job.spec.gpus,
      by: op.byJobId,
      reason: op.reasonCode,
      graceUntil: op.graceUntil,
    });
  }

  /**
   * R12: the START of a job this plan moved. Its new run holds its GPUs from now on (the snapshot
   * shows it there); the old copy still winds down and, when it stops, the new run launches.
   */
  private move(c: ClusterState, job: JobState, op: StartOp): void {
    job.movable = false;
    job.moveTo = op;
    // Its next run segment waits from the move on (the grace), not from its submit.
    job.queuedAt = this.now;
    const running = startedRun(job.running!, op.startBy, op.placement, op.charged);
    c.running.remove(job.running!);
    job.running = running;
    c.running.add(running);
  }

  /**
   * The run starts leaving: a new object with its id in the snapshot, not an edit (the core's
   * scheduler freezes the runs it keeps, createScheduler). A run that checkpoints keeps doing so.
   */
  private markStopping(job: JobState, stopping: NonNullable<RunningJob["stopping"]>): void {
    const old = job.running!;
    const next: RunningJob =
      old instanceof CheckpointedRun ? Object.assign(new CheckpointedRun(this, job), old, { stopping }) : { ...old, stopping };
    job.cluster.running.replace(old, next);
    job.running = next;
  }

  /** maxRuntime (the core's KILL): SIGTERM now, the job ends at graceUntil unless its work finishes first; never requeued. */
  private kill(op: KillOp): void {
    const job = this.jobs.get(op.jobId);
    if (!job || job.phase !== "running" || job.sigtermAt !== null || job.launchedAt === null) return;
    this.markStopping(job, { byJobId: null, graceUntil: op.graceUntil });
    job.sigtermAt = this.now;
    job.requeueOnStop = false;
    job.gen++;
    const finishAt = job.launchedAt + job.overhead + (job.spec.duration - job.saved);
    if (finishAt <= op.graceUntil) {
      job.sigtermAt = null;
      this.q.push(Math.max(this.now, finishAt), { k: K.STOP, job, gen: job.gen, cause: "finish" });
    } else if (op.graceUntil <= this.now) this.stop(job, "kill");
    else this.q.push(op.graceUntil, { k: K.STOP, job, gen: job.gen, cause: "kill" });
  }

  /** The latest checkpoint of the current run (every checkpointInterval of work after launch + overhead), or null. */
  lastCheckpointAt(job: JobState): number | null {
    if (job.launchedAt === null || !job.spec.resumable) return null;
    const interval = this.scenario.simulation.checkpointInterval;
    const workFrom = job.launchedAt + job.overhead;
    const end = job.sigtermAt ?? this.now;
    if (interval <= 0 || end < workFrom + interval) return null;
    return workFrom + Math.floor((end - workFrom) / interval) * interval;
  }

  private killAt(job: JobState): number {
    return job.spec.maxRuntime === null || job.launchedAt === null ? Infinity : job.launchedAt + job.spec.maxRuntime;
  }

  private start(c: ClusterState, op: StartOp): void {
    const job = this.jobs.get(op.jobId);
    if (job?.movable && job.phase === "running" && isMove(op)) return this.move(c, job, op);
    if (!job || job.phase !== "pending") return;
    this.opts.forecast?.started(op.jobId, op.startBy);
    const p = job.pending!;
    c.pending.remove(p);
    job.pending = null;
    job.phase = "running";
    job.gen++;
    job.charged = op.charged;
    job.protectedUntil = op.protectedUntil;
    job.launchedAt = null;
    job.sigtermAt = null;
    job.stopCause = null;
    job.requeueOnStop = false;
    // The core reads when the job last checkpointed (R6 victim order) at its cycle's now: a getter on
    // the prototype computes it from the run's launch (no per-cycle pass over the running jobs, and
    // every running object keeps one shape).
    const running: RunningJob = Object.assign(
      new CheckpointedRun(this, job),
      startedRun(p, op.startBy, op.placement, op.charged),
    );
    job.running = running;
    c.running.add(running);
    if (op.startBy <= this.now) this.launch(job);
    else this.q.push(op.startBy, { k: K.LAUNCH, job, gen: job.gen });
  }

  private launch(job: JobState): void {
    const now = this.now;
    const s = job.spec;
    job.launchedAt = now;
    job.overhead = job.launches > 0 && s.resumable ? this.scenario.simulation.restartOverhead : 0;
    job.launches++;
    const finishAt = now + job.overhead + (s.duration - job.saved);
    const killAt = this.killAt(job);
    this.q.push(finishAt, { k: K.STOP, job, gen: job.gen, cause: "finish" });
    if (killAt < finishAt) this.q.push(killAt, { k: K.EXPIRE, job, gen: job.gen });
    if (job.charged && job.protectedUntil > now && job.protectedUntil < Math.min(finishAt, killAt)) {
      this.q.push(job.protectedUntil, { k: K.WAKE, job, gen: job.gen });
    }
    const c = job.cluster;
    if (job.charged) c.usage.get(s.budget)?.addRate(now, s.gpus);
    job.segment = this.recorder.runStart(c.index, s, job.charged, now, job.queuedAt);
    if (job.lastPreemption) {
      job.lastPreemption.restartedAt = now;
      job.lastPreemption = null;
    }
    const nodes: Record<string, number[]> = {};
    for (const pl of job.running!.placement) nodes[pl.nodeId] = pl.gpuIndexes;
    this.opts.sink.emit({
      t: now,
      type: "start",
      job: s.id,
      budget: s.budget,
      gpus: s.gpus,
      nodes,
      protectedUntil: job.protectedUntil >= Number.MAX_SAFE_INTEGER ? null : job.protectedUntil,
      charged: job.charged,
      wait: now - job.queuedAt,
    });
  }

  private stop(job: JobState, cause: StopCause): void {
    const now = this.now;
    const s = job.spec;
    const c = job.cluster;
    if (job.launchedAt !== null) {
      if (cause !== "finish") {
        const workEnd = job.sigtermAt ?? now;
        const work = Math.max(0, workEnd - (job.launchedAt + job.overhead));
        const interval = this.scenario.simulation.checkpointInterval;
        const kept = Math.floor(work / interval) * interval;
        job.saved = s.resumable ? Math.min(s.duration, job.saved + kept) : 0;
        if (cause === "preempt" && job.lastPreemption) {
          // Lost to the preemption: work since the last checkpoint (all of it when not resumable)
          // and the restart overhead the next start pays.
          const lost = s.resumable ? work - kept + this.scenario.simulation.restartOverhead : work;
          job.lastPreemption.lostGpuSeconds = s.gpus * lost;
        }
      }
      if (job.charged) c.usage.get(s.budget)?.addRate(now, -s.gpus);
      this.recorder.runStop(c.index, s, job.segment!, now, cause);
      job.segment = null;
    }
    job.gen++;
    job.movable = false;
    const moveTo = job.moveTo;
    job.moveTo = null;
    job.launchedAt = null;
    job.sigtermAt = null;
    this.opts.sink.emit({ t: now, type: "stop", job: s.id, budget: s.budget, gpus: s.gpus, cause });
    if (moveTo !== null && cause === "preempt") {
      // R12: the old copy is gone; the moved job launches on the GPUs it already holds (never pending).
      job.charged = moveTo.charged;
      job.protectedUntil = moveTo.protectedUntil;
      job.requeueOnStop = false;
      if (moveTo.startBy <= now) this.launch(job);
      else this.q.push(moveTo.startBy, { k: K.LAUNCH, job, gen: job.gen });
      return;
    }
    c.running.remove(job.running!);
    job.running = null;
    // The simulator knows when the work itself is done ("finish", even inside a grace period); any
    // other end is the core's runOutcome with the requeue decision its PREEMPT or LOST op recorded.
    const requeued =
      cause !== "finish" &&
      runOutcome(
        {
          stopping: cause !== "lost",
          intent: cause === "kill" ? "KILL" : cause === "cancel" ? "CANCEL" : "PREEMPT",
          requeue: job.requeueOnStop,
        },
        { cause: cause === "lost" ? "lost" : "exit", exitCode: null },
      ).requeued;
    if (cause === "finish") {
      job.completed = true;
      this.completed++;
    } else if (requeued) {
      this.opts.sink.emit({ t: now, type: "requeue", job: s.id, budget: s.budget, gpus: s.gpus, saved: job.saved });
      this.toPending(job, now);
      // Requeued outside a cycle's decision (lost, or grace 0): the cluster needs another cycle now.
      this.q.push(now, { k: K.HEARTBEAT, cluster: c });
      return;
    }
    job.phase = "done";
    this.recorder.demand(c.index, s, now, -1);
  }
}

/** A running job as the core sees it, with `lastCheckpointAt` read at the current virtual time. */
class CheckpointedRun {
  readonly #sim: Simulation;
  readonly #job: JobState;

  constructor(sim: Simulation, job: JobState) {
    this.#sim = sim;
    this.#job = job;
  }

  get lastCheckpointAt(): number | null {
    return this.#sim.lastCheckpointAt(this.#job);
  }
}

/**
 * An array kept sorted by id with the core's comparison (`<` on the id strings); ids are unique.
 * Add and remove find the place by binary search and shift the tail (a memmove of ~1,000 pointers).
 */
class IdSortedList<T extends { readonly id: string }> {
  readonly items: T[] = [];

  /** The first index whose id is not below `id`. */
  private lowerBound(id: string): number {
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.items[mid]!.id < id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  add(item: T): void {
    const i = this.lowerBound(item.id);
    if (i === this.items.length) this.items.push(item);
    else this.items.splice(i, 0, item);
  }

  remove(item: T): void {
    const i = this.lowerBound(item.id);
    if (this.items[i] !== item) throw new Error(`simulator: ${item.id} is not in this list`);
    this.items.splice(i, 1);
  }

  /** `next` takes the place of `item` (the same id). */
  replace(item: T, next: T): void {
    const i = this.lowerBound(item.id);
    if (this.items[i] !== item || next.id !== item.id) throw new Error(`simulator: ${item.id} is not in this list`);
    this.items[i] = next;
  }
}
