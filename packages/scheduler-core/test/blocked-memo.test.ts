import { describe, expect, it } from "vitest";
import { makeCluster, makeJob } from "@tranche/testkit";
import { defaultPolicy } from "../src/index";
import { FAIRSHARE } from "../src/cycle/rule-set";
import { runCycleWith } from "../src/run-cycle";
import type { ClusterSnapshot, CycleResult, PendingJob, RunningJob } from "../src/types";
import { WorkingMemory } from "../src/working-memory";

/** Deterministic PRNG (mulberry32): the test's workload, never the core. */
function prng(seed: number): () => number {
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

function cycle(snap: ClusterSnapshot, now: number, share: boolean): CycleResult {
  const memory = new WorkingMemory();
  memory.shareBlockedOutcomes = share;
  memory.rememberFailedReservations = share;
  return runCycleWith(memory, JSON.parse(JSON.stringify(snap)) as ClusterSnapshot, defaultPolicy, now, FAIRSHARE);
}

/**
 * A cluster kept overloaded (more submitted every cycle than finishes), jobs of few kinds so that
 * many blocked jobs share one: every cycle is run with and without shared outcomes and remembered
 * failed reservation searches, and the results must be identical. Returns how many blocked reasons the cycles gave.
 */
function replay(seed: number, cycles: number): number {
  const rnd = prng(seed);
  const base = makeCluster()
    .nodes(6, 8)
    .budget("a", 0.5, { usage: 3_000_000, entitlement: 6_000_000 })
    .budget("b", 0.3, { usage: 1_000_000, entitlement: 3_600_000 })
    .budget("c", 0.2, { usage: 2_000_000, entitlement: 2_400_000 })
    .snapshot();
  const snap: ClusterSnapshot = { ...base, running: [], pending: [] };
  const running = snap.running as RunningJob[];
  const ends = new Map<string, number>();
  const budgets = ["a", "b", "c"];
  let next = 0;
  const submit = (now: number): void => {
    const gpus = [1, 2, 4, 8, 16][Math.floor(rnd() * 5)]!;
    const debug = rnd() < 0.15;
    const unallocated = !debug && rnd() < 0.2;
    const id = `j${String(next++).padStart(4, "0")}`;
    const job = makeJob(id)
      .budget(budgets[Math.floor(rnd() * 3)]!)
      .user(`u${Math.floor(rnd() * 3)}`)
      .gpus(debug ? Math.min(gpus, 4) : gpus)
      .minRuntime(debug ? 300 : unallocated ? 0 : [600, 3600][Math.floor(rnd() * 2)]!)
      .maxRuntime(debug ? 600 : rnd() < 0.3 ? 7200 : null)
      .submittedAt(now)
      .pending();
    (snap.pending as PendingJob[]).push(job);
    ends.set(id, 600 + Math.floor(rnd() * 6000));
  };
  for (let i = 0; i < 80; i++) submit(0);
  let blocked = 0;
  for (let c = 0; c < cycles; c++) {
    const now = c * 120;
    for (const n of snap.nodes) n.lastHeartbeatAt = now;
    const unshared = cycle(snap, now, false);
    const shared = cycle(snap, now, true);
    expect(JSON.stringify(shared), `cycle ${c} at t=${now}`).toBe(JSON.stringify(unshared));
    for (const r of shared.pending.values()) if (r.details.position !== null && r.code !== "CLUSTER_DRAINING") blocked++;
    for (const op of shared.plan) {
      if (op.op === "PREEMPT" || op.op === "KILL") {
        const j = running.find((r) => r.id === op.jobId)!;
        j.stopping = { byJobId: op.op === "PREEMPT" ? op.byJobId : null, graceUntil: op.graceUntil };
      } else if (op.op === "LOST")
        running.splice(
          running.findIndex((r) => r.id === op.jobId),
          1,
        );
      else if (op.op === "START") {
        const i = snap.pending.findIndex((p) => p.id === op.jobId);
        const [p] = (snap.pending as PendingJob[]).splice(i, 1);
        const r: RunningJob = { ...p!, startedAt: op.startBy, placement: op.placement, charged: op.charged, stopping: null };
        const at = running.findIndex((x) => byId(x, r) > 0);
        running.splice(at < 0 ? running.length : at, 0, r);
      }
    }
    const t = now + 120;
    for (let i = running.length - 1; i >= 0; i--) {
      const r = running[i]!;
      if ((r.stopping && r.stopping.graceUntil <= t) || r.startedAt + ends.get(r.id)! <= t) running.splice(i, 1);
    }
    for (let i = 0; i < 4; i++) submit(t);
    snap.reservations = shared.reservations;
  }
  return blocked;
}

describe("blocked jobs of one kind sharing one outcome", () => {
  it("gives every cycle of an overloaded cluster exactly the result of trying each job on its own", () => {
    // Thousands of blocked reasons over the cycles: most of them come from a shared outcome.
    for (const seed of [11, 12, 13]) expect(replay(seed, 40)).toBeGreaterThan(2_000);
  }, 60_000);
});
