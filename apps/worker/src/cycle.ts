import type { ClusterSnapshot, CycleResult, PolicyConfig } from "@tranche/scheduler-core";

/**
 * One scheduling cycle for one cluster, in numbered phases like Kueue's schedule():
 *
 *   1 load     read the cluster's snapshot from Postgres                  (SnapshotSource)
 *   2 decide   the core's runCycle: pure, no I/O, no clock                (Decide)
 *   3 apply    the plan in ONE transaction: the commit point             (PlanApplier)
 *   4 tell     wake the agents of touched nodes, fire repair hooks       (AgentNotifier)
 *   5 forecast store the last start forecast, start the next off the loop (Forecast, optional)
 *
 * The ports are declared here, where they are used; main.ts wires the Postgres-backed ones and the unit
 * tests pass small fakes. Nothing here keeps state between cycles: a cycle that fails anywhere before
 * the commit changes nothing, and the next one starts again from a fresh snapshot.
 */

export interface LoadedCycle<Extra = unknown> {
  snapshot: ClusterSnapshot;
  policy: PolicyConfig;
  now: number;
  extra: Extra;
}

export interface SnapshotSource<Extra> {
  load(clusterId: string, now: number): Promise<LoadedCycle<Extra>>;
}

export type Decide = (snapshot: ClusterSnapshot, policy: PolicyConfig, now: number) => CycleResult;

export interface AppliedSummary {
  cycleId: string;
  started: number;
  preempted: number;
  lost: number;
  killed: number;
  touchedNodes: string[];
  repairNodes: { id: string; name: string }[];
}

export interface PlanApplier<Extra> {
  apply(loaded: LoadedCycle<Extra>, result: CycleResult, timings: { loadMs: number; decideMs: number }): Promise<AppliedSummary>;
}

export interface AgentNotifier {
  wake(nodeIds: string[]): Promise<void>;
  repair(nodes: { id: string; name: string }[]): Promise<void>;
}

export interface CycleReport {
  clusterId: string;
  /** The cluster's name, as its snapshot has it: what the worker's lines call it ("h100"). */
  cluster: string;
  cycleId: string;
  pending: number;
  running: number;
  started: number;
  preempted: number;
  lost: number;
  killed: number;
  loadMs: number;
  decideMs: number;
  applyMs: number;
  tellMs: number;
  totalMs: number;
}

export interface CyclePorts<Extra> {
  source: SnapshotSource<Extra>;
  decide: Decide;
  applier: PlanApplier<Extra>;
  agents: AgentNotifier;
  clock: () => number;
  /** Phase 5: after the commit, best effort; it must not wait for the forecast itself (see forecast.ts). */
  forecast?: (loaded: LoadedCycle<Extra>, result: CycleResult) => Promise<void>;
  /** Milliseconds for phase timings. */
  timer?: () => number;
}

export async function runClusterCycle<Extra>(ports: CyclePorts<Extra>, clusterId: string): Promise<CycleReport> {
  const ms = ports.timer ?? (() => performance.now());
  const t0 = ms();
  // 1 load
  const loaded = await ports.source.load(clusterId, ports.clock());
  const t1 = ms();
  // 2 decide (pure)
  const result = ports.decide(loaded.snapshot, loaded.policy, loaded.now);
  const t2 = ms();
  // 3 apply: the commit point
  const applied = await ports.applier.apply(loaded, result, { loadMs: t1 - t0, decideMs: t2 - t1 });
  const t3 = ms();
  // 4 tell: best effort (agents also pull on every heartbeat)
  try {
    if (applied.touchedNodes.length > 0) await ports.agents.wake(applied.touchedNodes);
    if (applied.repairNodes.length > 0) await ports.agents.repair(applied.repairNodes);
  } catch {
    // agents learn everything from the database anyway
  }
  // 5 forecast: best effort, never fails a committed cycle
  if (ports.forecast) {
    try {
      await ports.forecast(loaded, result);
    } catch {
      // the previous forecast stays; the next due cycle tries again
    }
  }
  const t4 = ms();
  return {
    clusterId,
    cluster: loaded.snapshot.cluster.name,
    cycleId: applied.cycleId,
    pending: loaded.snapshot.pending.length,
    running: loaded.snapshot.running.length,
    started: applied.started,
    preempted: applied.preempted,
    lost: applied.lost,
    killed: applied.killed,
    loadMs: t1 - t0,
    decideMs: t2 - t1,
    applyMs: t3 - t2,
    tellMs: t4 - t3,
    totalMs: t4 - t0,
  };
}

/**
 * The worker's line for a cycle that changed something: "cycle 27 h100: 1 started, 0 preempted, 0 lost,
 * 0 killed; 1 pending, 0 running · load 12 ms, decide 2 ms, apply 21 ms".
 */
export function cycleLine(r: CycleReport): string {
  return `cycle ${r.cycleId} ${r.cluster}: ${r.started} started, ${r.preempted} preempted, ${r.lost} lost, ${r.killed} killed; ${r.pending} pending, ${r.running} running · load ${r.loadMs.toFixed(0)} ms, decide ${r.decideMs.toFixed(0)} ms, apply ${r.applyMs.toFixed(0)} ms`;
}
