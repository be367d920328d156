import { makeCluster, makeJob } from "@tranche/testkit";
import type { PendingBacklog } from "../../src/pending-backlog";
import type { ClusterSnapshot, CycleResult, PendingJob, RunningJob } from "../../src/types";

// One workload generator for the tests that compare two ways of running the same cycles (a board kept
// between cycles vs a fresh load; blocked jobs sharing one outcome vs each tried on its own).

/** Deterministic PRNG (mulberry32): the test's workload, never the core. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const byId = (a: { id: string }, b: { id: string }): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The jobs a replay submits. 15% are debug-shaped (<= 4 GPUs, 10 min); the rest draw from these. */
export interface Workload {
  /** GPUs, drawn uniformly from the list. */
  gpus: readonly number[];
  /** Share of non-debug jobs that are unallocated (minRuntime 0). */
  unallocated: number;
  /** minRuntime of allocated jobs, drawn uniformly. */
  minRuntimes: readonly number[];
  /** Users u0..u(n-1) drawn uniformly; null: the testkit's one user. */
  users: number | null;
  /** How long each job would run: min + a uniform draw in [0, spread). */
  runFor: { min: number; spread: number };
  /** Jobs submitted at time 0. */
  initial: number;
  /** Between cycles: calls `submit` for each job that arrives (may draw from `rnd`). */
  arrive: (rnd: () => number, submit: () => void) => void;
}

/**
 * A cluster kept overloaded with blocked jobs of few kinds: 1-16 GPUs, two minimum runtimes, three
 * users, 80 jobs at first and four more every cycle (more than finishes). `over` changes any of it.
 */
export function steadyOverload(over: Partial<Workload> = {}): Workload {
  return {
    gpus: [1, 2, 4, 8, 16],
    unallocated: 0.2,
    minRuntimes: [600, 3600],
    users: 3,
    runFor: { min: 600, spread: 6000 },
    initial: 80,
    arrive: (_rnd, submit) => {
      for (let i = 0; i < 4; i++) submit();
    },
    ...over,
  };
}

/**
 * Replays cycles the way the simulator does: 6 nodes of 8 GPUs and three budgets, one running array
 * kept in id order and changed in place, preempted jobs replaced by a stopping copy (a running job is
 * never edited: createScheduler freezes the ones it keeps) until their grace ends, a
 * cycle every 120 s. `cycle` runs one cycle its way (and compares); its result's plan is applied.
 * `nodeEvent`: that node reports unhealthy from `at` until `until` (it drains and comes back).
 * `backlog`: the pending jobs are that backlog's (pending-backlog.ts), passed as the snapshot's, as
 * the simulator passes its own.
 */
export function replayOverloaded(
  seed: number,
  cycles: number,
  w: Workload,
  cycle: (snap: ClusterSnapshot, now: number, c: number) => CycleResult,
  nodeEvent?: { at: number; nodeId: string; until: number },
  backlog?: PendingBacklog,
): void {
  const rnd = prng(seed);
  const base = makeCluster()
    .nodes(6, 8)
    .budget("a", 0.5, { usage: 3_000_000, entitlement: 6_000_000 })
    .budget("b", 0.3, { usage: 1_000_000, entitlement: 3_600_000 })
    .budget("c", 0.2, { usage: 2_000_000, entitlement: 2_400_000 })
    .snapshot();
  const snap: ClusterSnapshot = backlog
    ? { ...base, running: [], pending: backlog.items as PendingJob[], backlog }
    : { ...base, running: [], pending: [] };
  const running = snap.running as RunningJob[];
  const ends = new Map<string, number>();
  const budgets = ["a", "b", "c"];
  let next = 0;
  const submit = (now: number): void => {
    const gpus = w.gpus[Math.floor(rnd() * w.gpus.length)]!;
    const debug = rnd() < 0.15;
    const unallocated = !debug && rnd() < w.unallocated;
    const id = `j${String(next++).padStart(4, "0")}`;
    let job = makeJob(id).budget(budgets[Math.floor(rnd() * 3)]!);
    if (w.users !== null) job = job.user(`u${Math.floor(rnd() * w.users)}`);
    const pending = job
      .gpus(debug ? Math.min(gpus, 4) : gpus)
      .minRuntime(debug ? 300 : unallocated ? 0 : w.minRuntimes[Math.floor(rnd() * w.minRuntimes.length)]!)
      .maxRuntime(debug ? 600 : rnd() < 0.3 ? 7200 : null)
      .submittedAt(now)
      .pending();
    if (backlog) backlog.add(pending);
    else (snap.pending as PendingJob[]).push(pending);
    ends.set(id, w.runFor.min + Math.floor(rnd() * w.runFor.spread));
  };
  for (let i = 0; i < w.initial; i++) submit(0);
  for (let c = 0; c < cycles; c++) {
    const now = c * 120;
    for (const n of snap.nodes) {
      n.lastHeartbeatAt = now;
      n.health = nodeEvent && n.id === nodeEvent.nodeId && now >= nodeEvent.at && now < nodeEvent.until ? "UNHEALTHY" : "HEALTHY";
      if (n.state === "REPAIR" && n.health === "HEALTHY") n.state = "READY";
    }
    const result = cycle(snap, now, c);
    for (const op of result.plan) {
      if (op.op === "NODE_STATE") snap.nodes.find((n) => n.id === op.nodeId)!.state = op.to;
      else if (op.op === "PREEMPT" || op.op === "KILL") {
        const i = running.findIndex((r) => r.id === op.jobId);
        const stopping = { byJobId: op.op === "PREEMPT" ? op.byJobId : null, graceUntil: op.graceUntil };
        running[i] = { ...running[i]!, stopping }; // a new object in the same place, as the simulator does
      } else if (op.op === "LOST")
        running.splice(
          running.findIndex((r) => r.id === op.jobId),
          1,
        );
      else if (op.op === "START") {
        const i = snap.pending.findIndex((p) => p.id === op.jobId);
        const p = snap.pending[i];
        if (backlog) backlog.remove(p!);
        else (snap.pending as PendingJob[]).splice(i, 1);
        const r: RunningJob = { ...p!, startedAt: op.startBy, placement: op.placement, charged: op.charged, stopping: null };
        const at = running.findIndex((x) => byId(x, r) > 0);
        running.splice(at < 0 ? running.length : at, 0, r);
      }
    }
    // Between cycles: jobs past their run time or their grace leave; new work arrives.
    const t = now + 120;
    for (let i = running.length - 1; i >= 0; i--) {
      const r = running[i]!;
      if ((r.stopping && r.stopping.graceUntil <= t) || r.startedAt + ends.get(r.id)! <= t) running.splice(i, 1);
    }
    w.arrive(rnd, () => submit(t));
    snap.reservations = result.reservations;
  }
}

/**
 * A copy of a replay's snapshot with the job rules it lacks: budget c with no entitlement (its jobs
 * are unallocated work, NO_ENTITLEMENT when they wait), a per-user limit on budget a unless
 * `userLimit` is false, and array caps on a third of the jobs (USER_LIMIT, ARRAY_LIMIT), so that
 * every reason a walk can give occurs.
 */
export function withJobRules(snap: ClusterSnapshot, userLimit = true): ClusterSnapshot {
  const copy = JSON.parse(JSON.stringify(snap)) as ClusterSnapshot;
  for (const n of copy.tree) {
    if (n.id === "c") n.entitlementGpuSeconds = 0;
    if (n.id === "a" && userLimit) n.maxGpusPerUser = 8;
  }
  for (const p of copy.pending) {
    if (Number(p.id.slice(1)) % 3 === 0) {
      p.arrayId = `arr${Number(p.id.slice(1)) % 2}`;
      p.arrayMaxRunning = 1;
    }
  }
  return copy;
}
