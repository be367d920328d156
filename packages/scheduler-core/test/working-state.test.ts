import { describe, expect, it } from "vitest";
import { makeCluster, makeJob } from "@tranche/testkit";
import { createScheduler, defaultPolicy, runCycle } from "../src/index";
import type { ClusterSnapshot, CycleResult, PendingJob, RunningJob } from "../src/types";

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

/**
 * Replays cycles the way the simulator does: one running array kept in id order and changed in place
 * (so the core keeps its board between cycles), preempted jobs marked stopping until their grace ends.
 * Every cycle is also run on a deep copy of the same snapshot (new objects: a fresh load) and the two
 * results must be identical.
 */
function replay(
  seed: number,
  cycles: number,
  nodeEvent?: { at: number; nodeId: string; until: number },
  readReasonsLate = false,
): number {
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
    const gpus = [1, 1, 2, 4, 8, 8, 16][Math.floor(rnd() * 7)]!;
    const debug = rnd() < 0.15;
    const unallocated = !debug && rnd() < 0.25;
    const id = `j${String(next++).padStart(4, "0")}`;
    const job = makeJob(id)
      .budget(budgets[Math.floor(rnd() * 3)]!)
      .gpus(debug ? Math.min(gpus, 4) : gpus)
      .minRuntime(debug ? 300 : unallocated ? 0 : [600, 1800, 3600][Math.floor(rnd() * 3)]!)
      .maxRuntime(debug ? 600 : rnd() < 0.3 ? 7200 : null)
      .submittedAt(now)
      .pending();
    (snap.pending as PendingJob[]).push(job);
    ends.set(id, 300 + Math.floor(rnd() * 5000));
  };
  for (let i = 0; i < 30; i++) submit(0);
  const scheduler = createScheduler(defaultPolicy);
  let compared = 0;
  // Results whose reasons were not read yet, with the fresh result's JSON to compare at the end.
  const late: { c: number; kept: CycleResult; fresh: string }[] = [];
  for (let c = 0; c < cycles; c++) {
    const now = c * 120;
    for (const n of snap.nodes) {
      n.lastHeartbeatAt = now;
      n.health = nodeEvent && n.id === nodeEvent.nodeId && now >= nodeEvent.at && now < nodeEvent.until ? "UNHEALTHY" : "HEALTHY";
      if (n.state === "REPAIR" && n.health === "HEALTHY") n.state = "READY";
    }
    const fresh = runCycle(JSON.parse(JSON.stringify(snap)) as ClusterSnapshot, defaultPolicy, now);
    const kept = scheduler.runCycle(snap, now);
    if (readReasonsLate) late.push({ c, kept, fresh: JSON.stringify(fresh) });
    else {
      expect(JSON.stringify(kept), `cycle ${c} at t=${now}`).toBe(JSON.stringify(fresh));
      compared++;
    }
    for (const op of kept.plan) {
      if (op.op === "NODE_STATE") snap.nodes.find((n) => n.id === op.nodeId)!.state = op.to;
      else if (op.op === "PREEMPT" || op.op === "KILL") {
        const j = running.find((r) => r.id === op.jobId)!;
        j.stopping = { byJobId: op.op === "PREEMPT" ? op.byJobId : null, graceUntil: op.graceUntil }; // changed in place, as the simulator does
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
    // Between cycles: jobs past their run time or their grace leave; new work arrives.
    const t = now + 120;
    for (let i = running.length - 1; i >= 0; i--) {
      const r = running[i]!;
      if ((r.stopping && r.stopping.graceUntil <= t) || r.startedAt + ends.get(r.id)! <= t) running.splice(i, 1);
    }
    for (let i = 0; i < 3; i++) if (rnd() < 0.7) submit(t);
    snap.reservations = kept.reservations;
  }
  for (const { c, kept, fresh } of late) {
    expect(JSON.stringify(kept), `cycle ${c}, reasons read after the last cycle`).toBe(fresh);
    compared++;
  }
  return compared;
}

describe("a board kept between cycles", () => {
  it("gives every cycle exactly the result of a fresh load of the same snapshot", () => {
    for (const seed of [1, 2, 3]) expect(replay(seed, 60)).toBe(60);
  });

  it("still does when a node drains and comes back in the middle", () => {
    expect(replay(4, 60, { at: 2400, nodeId: "n02", until: 4800 })).toBe(60);
  });

  it("gives the same reasons when they are first read only after later cycles moved the board on", () => {
    // The reasons are built when first read (PendingReasons): nothing they read may change meanwhile.
    for (const seed of [5, 6]) expect(replay(seed, 60, { at: 2400, nodeId: "n01", until: 4800 }, true)).toBe(60);
  });
});
