import { describe, expect, it } from "vitest";
import type { ClusterSnapshot, CycleResult, PolicyConfig } from "@tranche/scheduler-core";
import { PendingReasons, resolvePolicy } from "@tranche/scheduler-core";
import { decideRunOutcome, policyOverridesFromEnv } from "@tranche/domain/runtime";
import { cycleLine, runClusterCycle, type AppliedSummary, type CyclePorts } from "../src/cycle";
import { StartForecaster } from "../src/forecast";

const snapshot: ClusterSnapshot = {
  // Its id and its name differ, as in a real database (cuid ids): lines name the cluster by its name.
  cluster: { id: "c1", name: "h100", gpuType: "X" },
  nodes: [{ id: "n1", name: "n1", gpuCount: 8, state: "READY", health: "HEALTHY", lastHeartbeatAt: 100 }],
  tree: [{ id: "root", name: "lab", parentId: null, allocationPpm: 1_000_000, usageGpuSeconds: 0, entitlementGpuSeconds: 1000 }],
  running: [],
  pending: [],
};
const emptyResult = (now: number): CycleResult => ({
  now,
  clusterId: "c1",
  plan: [],
  order: [],
  pending: PendingReasons.empty(),
  ratios: [],
  reservations: [],
  stats: {} as CycleResult["stats"],
});

function fakePorts(over: Partial<CyclePorts<string>> = {}) {
  const calls: string[] = [];
  let t = 0;
  const applied: AppliedSummary = {
    cycleId: "7",
    started: 1,
    preempted: 0,
    lost: 0,
    killed: 0,
    touchedNodes: ["n1"],
    repairNodes: [{ id: "n2", name: "n2" }],
  };
  const ports: CyclePorts<string> = {
    clock: () => 1000,
    timer: () => (t += 10),
    source: {
      load: async (clusterId, now) => (
        calls.push(`load ${clusterId} ${now}`),
        { snapshot, policy: resolvePolicy(), now, extra: "x" }
      ),
    },
    decide: (_s: ClusterSnapshot, _p: PolicyConfig, now: number) => (calls.push(`decide ${now}`), emptyResult(now)),
    applier: {
      apply: async (loaded, _r, timings) => (calls.push(`apply ${loaded.extra} ${timings.loadMs} ${timings.decideMs}`), applied),
    },
    agents: {
      wake: async (ids) => void calls.push(`wake ${ids.join(",")}`),
      repair: async (nodes) => void calls.push(`repair ${nodes.map((n) => n.name).join(",")}`),
    },
    ...over,
  };
  return { ports, calls };
}

describe("runClusterCycle", () => {
  it("runs load, decide, apply and tell in that order, with the clock read once and phase timings", async () => {
    const { ports, calls } = fakePorts();
    const r = await runClusterCycle(ports, "c1");
    expect(calls).toEqual(["load c1 1000", "decide 1000", "apply x 10 10", "wake n1", "repair n2"]);
    expect(r).toMatchObject({ cycleId: "7", started: 1, loadMs: 10, decideMs: 10, applyMs: 10, tellMs: 10, totalMs: 40 });
  });

  it("reports the cycle in a line that names the cluster by its name, not its database id", async () => {
    const { ports } = fakePorts();
    const r = await runClusterCycle(ports, "c1");
    expect(r).toMatchObject({ clusterId: "c1", cluster: "h100" });
    expect(cycleLine(r)).toBe(
      "cycle 7 h100: 1 started, 0 preempted, 0 lost, 0 killed; 0 pending, 0 running · load 10 ms, decide 10 ms, apply 10 ms",
    );
  });

  it("tells the agents nothing when the apply (the commit point) fails", async () => {
    const { ports, calls } = fakePorts({ applier: { apply: async () => Promise.reject(new Error("connection lost")) } });
    await expect(runClusterCycle(ports, "c1")).rejects.toThrow("connection lost");
    expect(calls).toEqual(["load c1 1000", "decide 1000"]);
  });

  it("a failing wake-up does not fail a committed cycle (agents pull from the database anyway)", async () => {
    const { ports } = fakePorts({ agents: { wake: async () => Promise.reject(new Error("no")), repair: async () => {} } });
    await expect(runClusterCycle(ports, "c1")).resolves.toMatchObject({ cycleId: "7" });
  });
});

describe("the start forecast (phase 5) never delays a cycle", () => {
  const config = { everyMs: 0, maxJobs: 10, maxSteps: 5 };

  it("a forecast that never finishes leaves every later cycle running, and none starts a second one", async () => {
    let computed = 0;
    const written: number[] = [];
    const f = new StartForecaster(null, config, {
      compute: () => (computed++, new Promise(() => {})),
      write: async (_starts, now) => void written.push(now),
      clear: async () => {},
    });
    const { ports } = fakePorts({ forecast: (l) => f.afterCycle(l.snapshot, l.policy, l.now, 0, () => {}) });
    for (let i = 0; i < 5; i++) await expect(runClusterCycle(ports, "c1")).resolves.toMatchObject({ cycleId: "7" });
    expect(computed).toBe(1);
    expect(written).toEqual([]);
  });

  it("stores a finished forecast at the cluster's next cycle, then starts the next one", async () => {
    const pending: ((starts: []) => void)[] = [];
    const written: number[] = [];
    const f = new StartForecaster(null, config, {
      compute: () => new Promise((resolve) => void pending.push(resolve)),
      write: async (_starts, now) => void written.push(now),
      clear: async () => {},
    });
    const { ports } = fakePorts({ forecast: (l) => f.afterCycle(l.snapshot, l.policy, l.now, 0, () => {}) });
    await runClusterCycle(ports, "c1");
    expect([pending.length, written]).toEqual([1, []]);
    pending[0]!([]);
    await new Promise((r) => setImmediate(r));
    await runClusterCycle(ports, "c1");
    expect([pending.length, written]).toEqual([2, [1000]]);
  });

  it("a failed forecast is logged and the next due cycle tries again", async () => {
    const log: string[] = [];
    let computed = 0;
    const f = new StartForecaster(null, config, {
      compute: async () => (computed++, Promise.reject(new Error("out of memory"))),
      write: async () => {},
      clear: async () => {},
    });
    const { ports } = fakePorts({ forecast: (l) => f.afterCycle(l.snapshot, l.policy, l.now, 0, (line) => log.push(line)) });
    await runClusterCycle(ports, "c1");
    await new Promise((r) => setImmediate(r));
    await runClusterCycle(ports, "c1");
    expect(computed).toBe(2);
    expect(log[0]).toMatch(/^start forecast for cluster h100 failed: out of memory$/);
  });
});

describe("the stored start forecast stays current", () => {
  const config = { everyMs: 60_000, maxJobs: 10, maxSteps: 5 };
  const tick = () => new Promise((r) => setImmediate(r));
  /** A forecaster with fake ports; `compute` decides each refresh. */
  const make = (compute: () => Promise<[]>) => {
    const written: number[] = [];
    const cleared: number[] = [];
    const log: string[] = [];
    const f = new StartForecaster(null, config, {
      compute,
      write: async (_starts, now) => void written.push(now),
      clear: async (_cluster, before) => void cleared.push(before),
    });
    const after = (now: number) => f.afterCycle(snapshot, resolvePolicy(), now, (now - 1000) * 1000, (l) => log.push(l));
    return { written, cleared, log, after };
  };

  it("a stored refresh drops the stored forecasts older than it (the rows it skipped)", async () => {
    const { written, cleared, after } = make(async () => []);
    await after(1000);
    await tick();
    await after(1003);
    expect(written).toEqual([1000]);
    expect(cleared).toEqual([1000]);
  });

  it("a failed refresh drops the forecasts older than it at the next cycle, instead of leaving them up", async () => {
    const { written, cleared, log, after } = make(() => Promise.reject(new Error("out of memory")));
    await after(1000);
    await tick();
    expect(cleared).toEqual([]);
    await after(1003);
    expect(written).toEqual([]);
    expect(cleared).toEqual([1000]);
    expect(log).toHaveLength(1);
  });

  it("a result that waited through a pause of its cluster's cycles is dropped, not stored, and a new refresh starts", async () => {
    let computed = 0;
    const { written, cleared, log, after } = make(async () => (computed++, []));
    await after(1000);
    await tick();
    // The worker ran no cycle of the cluster for 6 minutes (stalled, or another worker led): jobs
    // have ended since, and what it made before names them.
    await after(1360);
    expect(written).toEqual([]);
    expect(cleared).toEqual([1000]);
    expect(log[0]).toMatch(/dropped: made before a pause in its cycles/);
    expect(computed).toBe(2);
  });

  it("a refresh still computing after the interval drops the forecasts older than it, once, and starts no second one", async () => {
    let computed = 0;
    const { written, cleared, log, after } = make(() => (computed++, new Promise(() => {})));
    await after(1000);
    await after(1030);
    expect(cleared).toEqual([]);
    await after(1060);
    await after(1090);
    await after(1200);
    expect(cleared).toEqual([1000]);
    expect(log).toEqual(["start forecast for cluster h100 is taking too long; the older forecasts were dropped"]);
    expect([computed, written]).toEqual([1, []]);
  });
});

describe("decideRunOutcome", () => {
  const run = { jobState: "RUNNING", intent: null, resumable: false, requeuePolicy: "NEVER" };
  const exit = (exitCode: number | null, signal: string | null = null) => ({ cause: "exit" as const, exitCode, signal });
  it("a run that exits 0 completes; any other exit fails", () => {
    expect(decideRunOutcome(run, exit(0))).toMatchObject({ state: "COMPLETED", end: "FINISH" });
    expect(decideRunOutcome(run, exit(2))).toMatchObject({ state: "FAILED", end: "FAIL" });
    expect(decideRunOutcome(run, exit(null, "SIGKILL")).sentence).toBe("Failed (signal SIGKILL).");
  });
  it("a preempted run the core did not requeue ends PREEMPTED, worded as such, even with retries left", () => {
    const preempted = { ...run, jobState: "STOPPING", intent: "PREEMPT", requeue: false, retries: { max: 2, used: 0 } };
    const out = decideRunOutcome(preempted, exit(143));
    expect(out).toMatchObject({ state: "PREEMPTED", end: "PREEMPT", requeued: false, eventKind: "PREEMPTED_ENDED" });
    expect(out.retry).toBeUndefined();
    expect(out.sentence).toBe("Preempted run ended (exit code 143); not requeued (not resumable and did not ask to be).");
  });
  it("a run that could not be launched fails with LAUNCH_FAILED and its error, even when it may be requeued", () => {
    const out = decideRunOutcome(
      { ...run, resumable: true },
      { cause: "exit", exitCode: null, signal: "LAUNCH_FAILED", launchError: "spawn E2BIG" },
    );
    expect(out).toMatchObject({ state: "FAILED", end: "FAIL", requeued: false, reasonCode: "LAUNCH_FAILED" });
    expect(out.sentence).toBe("Could not be started (spawn E2BIG): failed, not requeued.");
  });
  it("a failed run is retried as the core's runOutcome says, worded with its exit and the count", () => {
    const out = decideRunOutcome({ ...run, retries: { max: 2, used: 1 } }, exit(3));
    expect(out).toMatchObject({
      state: "PENDING",
      end: "FAIL",
      requeued: true,
      eventKind: "RETRIED",
      reasonCode: "RETRY",
      retry: 2,
    });
    expect(out.sentence).toBe("Failed (exit code 3); retry 2 of 2: requeued with its original submit time.");
    expect(decideRunOutcome({ ...run, retries: { max: 2, used: 2 } }, exit(3))).toMatchObject({
      state: "FAILED",
      eventKind: "FAILED",
    });
    const launch = { cause: "exit" as const, exitCode: null, signal: "LAUNCH_FAILED", launchError: "spawn E2BIG" };
    expect(decideRunOutcome({ ...run, retries: { max: 2, used: 0 } }, launch)).toMatchObject({
      state: "FAILED",
      reasonCode: "LAUNCH_FAILED",
    });
  });
  it("a run its agent fenced (no control plane past the heartbeat timeout) is lost, not failed; a fenced cancel stays a cancel", () => {
    expect(decideRunOutcome({ ...run, resumable: true }, exit(null, "FENCED"))).toMatchObject({
      state: "PENDING",
      end: "LOST",
      requeued: true,
      eventKind: "LOST",
    });
    expect(decideRunOutcome(run, exit(null, "FENCED"))).toMatchObject({ state: "LOST", requeued: false });
    expect(decideRunOutcome({ ...run, jobState: "STOPPING" }, exit(null, "FENCED"))).toMatchObject({ state: "CANCELLED" });
  });
  it("a run its agent stopped at its own shutdown (npm start's Ctrl-C) is requeued or LOST, never FAILED", () => {
    expect(decideRunOutcome({ ...run, resumable: true }, exit(null, "AGENT_SHUTDOWN"))).toMatchObject({
      state: "PENDING",
      end: "PREEMPT",
      eventKind: "REQUEUED",
    });
    expect(decideRunOutcome(run, exit(null, "AGENT_SHUTDOWN"))).toMatchObject({ state: "LOST", end: "LOST" });
  });
  it("a preempted resumable run is requeued; a non-resumable one is requeued only if it asked to be", () => {
    const stopping = { ...run, jobState: "STOPPING", intent: "PREEMPT" };
    expect(decideRunOutcome({ ...stopping, resumable: true }, exit(0))).toMatchObject({
      state: "PENDING",
      requeued: true,
      eventKind: "REQUEUED",
    });
    expect(decideRunOutcome({ ...stopping, requeuePolicy: "REQUEUE" }, exit(143))).toMatchObject({
      state: "PENDING",
      requeued: true,
    });
    expect(decideRunOutcome(stopping, exit(143))).toMatchObject({ state: "PREEMPTED", requeued: false, end: "PREEMPT" });
  });
  it("the requeue decision is the core's (stored with its PREEMPT, or its LOST op's), not the job's fields", () => {
    const stopping = { ...run, jobState: "STOPPING", intent: "PREEMPT" };
    expect(decideRunOutcome({ ...stopping, resumable: true, requeue: false }, exit(143))).toMatchObject({ state: "PREEMPTED" });
    expect(decideRunOutcome({ ...stopping, requeue: true }, exit(143))).toMatchObject({ state: "PENDING", requeued: true });
    const lost = { cause: "lost" as const, exitCode: null, signal: null };
    expect(decideRunOutcome({ ...run, resumable: true }, { ...lost, requeue: false })).toMatchObject({ state: "LOST" });
    expect(decideRunOutcome(run, { ...lost, requeue: true })).toMatchObject({ state: "PENDING", requeued: true });
  });
  it("a stop without a scheduler intent is a cancel; a maxRuntime stop ends KILLED", () => {
    expect(decideRunOutcome({ ...run, jobState: "STOPPING" }, exit(0))).toMatchObject({ state: "CANCELLED", end: "CANCEL" });
    expect(decideRunOutcome({ ...run, jobState: "STOPPING", intent: "KILL" }, exit(null, "SIGKILL"))).toMatchObject({
      state: "KILLED",
      end: "KILL",
    });
  });
  it("a run lost with its node is requeued at once when it may be, else ends LOST", () => {
    expect(decideRunOutcome({ ...run, resumable: true }, { cause: "lost", exitCode: null, signal: null })).toMatchObject({
      state: "PENDING",
      end: "LOST",
    });
    expect(decideRunOutcome(run, { cause: "lost", exitCode: null, signal: null })).toMatchObject({ state: "LOST", end: "LOST" });
  });
});

describe("policyOverridesFromEnv", () => {
  it("reads known numeric settings and refuses anything else with a specific message", () => {
    expect(policyOverridesFromEnv('{"heartbeatTimeout":10}')).toEqual({ heartbeatTimeout: 10 });
    expect(policyOverridesFromEnv(undefined)).toEqual({});
    expect(() => policyOverridesFromEnv("{nope")).toThrow("TRANCHE_POLICY must be a JSON object of policy settings");
    expect(() => policyOverridesFromEnv('{"heartbeat":10}')).toThrow("unknown setting 'heartbeat'");
    expect(() => policyOverridesFromEnv('{"heartbeatTimeout":-1}')).toThrow("heartbeatTimeout must be a non-negative number");
  });
});
