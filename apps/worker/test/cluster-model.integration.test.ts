import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import {
  acquireOrRenewLease,
  applyCyclePlan,
  assignmentsFor,
  handleHeartbeat,
  hashSecret,
  loadCycleInput,
} from "@tranche/domain/runtime";
import {
  applyPlan,
  createClusterModel,
  graceEnded,
  nodeReported,
  operatorMovedNode,
  runCycle,
  runExited,
  submitJob,
  type ClusterModel,
  type CycleResult,
} from "@tranche/scheduler-core";
import { fakeGpus, makeWorld, submit, type World } from "./harness";

/**
 * Conformance: the worker's database applier (applyCyclePlan, closeRun) and the core's pure cluster
 * model (applyPlan and its reducers) run the same scripted scenario; after every step the jobs'
 * states, starts and grace ends, and the nodes' states must be the same in both.
 */
/**
 * One database and one model, with the steps a script drives through both (set up by its own
 * describe: every script starts from an empty world).
 */
function conformance(dbName: string) {
  let db: TestDatabase;
  let world: World;
  let model: ClusterModel;
  const t0 = Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    db = await createTestDatabase(dbName);
    world = await makeWorld(db.prisma, { nodes: 2 });
    expect(await acquireOrRenewLease(db.prisma, "test", 600)).toBe(true);
    const input = await loadCycleInput(db.prisma, world.clusterId, t0);
    model = createClusterModel(input.snapshot.cluster, input.snapshot.nodes, input.snapshot.tree);
  });
  afterAll(async () => {
    await db?.drop();
  });

  const secs = (d: Date | null) => (d === null ? null : Math.round(d.getTime() / 1000));

  async function dbState() {
    const jobs = await db.prisma.job.findMany({ orderBy: { id: "asc" } });
    const nodes = await db.prisma.node.findMany({ orderBy: { name: "asc" } });
    return {
      jobs: Object.fromEntries(
        jobs.map((j) => [
          String(j.id),
          {
            state: j.state,
            startedAt: j.state === "RUNNING" || j.state === "STOPPING" ? secs(j.startedAt) : null,
            graceUntil: secs(j.graceUntil),
            requeues: j.requeueCount,
          },
        ]),
      ),
      nodes: Object.fromEntries(nodes.map((n) => [n.id, n.state])),
    };
  }
  function modelState() {
    return {
      jobs: Object.fromEntries(
        model.jobs.map((j) => [
          j.job.id,
          {
            state: j.state,
            startedAt: j.run?.startedAt ?? null,
            // A moved job's old copy winds down until its graceUntil (the job row keeps it meanwhile).
            graceUntil: j.run?.graceUntil ?? j.leaving?.graceUntil ?? null,
            requeues: j.requeues,
          },
        ]),
      ),
      nodes: Object.fromEntries(model.nodes.map((n) => [n.id, n.state])),
    };
  }
  const same = async () => {
    const d = await dbState();
    expect(d).toEqual(modelState());
    return d;
  };

  async function add(input: Parameters<typeof submit>[2]): Promise<string> {
    const id = String(await submit(db.prisma, world, input));
    const snap = (await loadCycleInput(db.prisma, world.clusterId, t0)).snapshot;
    model = submitJob(
      model,
      snap.pending.find((p) => p.id === id)!,
    );
    return id;
  }

  /** The core decides on the database's snapshot; `between` runs between decision and apply (a concurrent operator). */
  async function cycle(now: number, between?: (r: CycleResult) => Promise<void>): Promise<CycleResult> {
    const input = await loadCycleInput(db.prisma, world.clusterId, now);
    const result = runCycle(input.snapshot, input.policy, now);
    if (between) await between(result);
    await applyCyclePlan(db.prisma, input, result, "test", { loadMs: 0, decideMs: 0 });
    model = applyPlan(model, result.plan, now, result.reservations);
    return result;
  }

  /** One heartbeat of a node's agent through the real protocol handler, and the same report to the model. */
  async function report(name: string, at: number, healthy: boolean, jobs: object[] = []) {
    const id = world.nodeIds[name]!;
    await db.prisma.node.update({ where: { id }, data: { agentCredentialHash: hashSecret(`cred-${name}`) } });
    const r = await handleHeartbeat(
      db.prisma,
      `cred-${name}`,
      {
        nodeName: name,
        agentVersion: "test",
        health: { healthy, errors: [] },
        gpus: fakeGpus(),
        busyPercent: 50,
        jobs,
        logs: [],
      },
      new Date(at * 1000),
    );
    expect(r.status).toBe(200);
    model = nodeReported(model, id, healthy, at);
  }

  /** The agent reports a job's processes gone (exit code, or null: killed by SIGKILL at the end of its grace). */
  async function exited(jobId: string, exitCode: number | null, at: number) {
    // The oldest open segment: a moved job's old copy exits before its new run can launch.
    const seg = await db.prisma.runSegment.findFirstOrThrow({
      where: { jobId: Number(jobId), endedAt: null },
      include: { placements: true },
      orderBy: { id: "asc" },
    });
    const name = Object.entries(world.nodeIds).find(([, id]) => id === seg.placements[0]!.nodeId)![0];
    const exit = {
      jobId: Number(jobId),
      segmentId: String(seg.id),
      status: "EXITED",
      pid: 1,
      launchedAt: null,
      exitCode,
      signal: exitCode === null ? "SIGKILL" : null,
      endedAt: new Date(at * 1000).toISOString(),
    };
    await report(name, at, true, [exit]);
    model = runExited(model, jobId, exitCode, at);
  }

  const heartbeat = (name: string, at: number) => report(name, at, true);

  return {
    t0,
    add,
    cycle,
    same,
    exited,
    heartbeat,
    get db() {
      return db;
    },
    get world() {
      return world;
    },
    get model() {
      return model;
    },
    set model(m: ClusterModel) {
      model = m;
    },
  };
}

describe("the database applier conforms to the core's cluster model", () => {
  const c = conformance("cluster_model");
  const { t0, add, cycle, same, exited, heartbeat } = c;

  it("runs one scripted scenario through both and finds the same jobs and nodes after every step", async () => {
    const free = await add({ command: "x", gpus: 8, minRuntime: 0, resumable: true });
    const once = await add({ command: "x", gpus: 8, minRuntime: 0, requeue: false });
    await cycle(t0);
    let s = await same();
    expect([s.jobs[free]!.state, s.jobs[once]!.state]).toEqual(["RUNNING", "RUNNING"]);

    // Allocated work preempts one unallocated job: the victim winds down, the preemptor holds its GPUs.
    const paid = await add({ command: "x", gpus: 8, minRuntime: 600 });
    const r = await cycle(t0 + 10);
    const victim = r.plan.find((o) => o.op === "PREEMPT")!.jobId;
    s = await same();
    expect(s.jobs[victim]!.state).toBe("STOPPING");
    expect(s.jobs[paid]!.state).toBe("RUNNING");

    // Its grace ends (the agent reports it killed): requeued when resumable, PREEMPTED when it asked not to be.
    await exited(victim, null, t0 + 20);
    c.model = graceEnded(c.model, t0 + 20);
    s = await same();
    expect(s.jobs[victim]!.state).toBe(victim === free ? "PENDING" : "PREEMPTED");

    // The partial-apply bug: an operator cordons the node a START was placed on, after the cycle
    // decided and before its plan is applied. The START is dropped, and so is the PREEMPT made for it.
    const other = victim === free ? once : free;
    const big = await add({ command: "x", gpus: 8, minRuntime: 600, priority: 5 });
    const r2 = await cycle(t0 + 30, async (res) => {
      const start = res.plan.find((o) => o.op === "START" && o.jobId === big);
      if (start?.op !== "START") throw new Error("the big job should start");
      expect(start.afterExitOf).toEqual([other]);
      const nodeId = start.placement[0]!.nodeId;
      await c.db.prisma.node.update({ where: { id: nodeId }, data: { state: "CORDONED" } });
      c.model = operatorMovedNode(c.model, nodeId, "CORDONED");
    });
    expect(r2.plan.some((o) => o.op === "PREEMPT" && o.jobId === other)).toBe(true);
    s = await same();
    expect(s.jobs[big]!.state).toBe("PENDING");
    expect(s.jobs[other]!.state).toBe("RUNNING");

    // A job finishes; a silent node goes DOWN and its job is LOST (requeued when it may be).
    await exited(paid, 0, t0 + 40);
    s = await same();
    expect(s.jobs[paid]!.state).toBe("COMPLETED");
    const cordoned = Object.entries(s.nodes).find(([, st]) => st === "CORDONED")![0];
    await c.db.prisma.node.update({ where: { id: cordoned }, data: { state: "READY" } });
    c.model = operatorMovedNode(c.model, cordoned, "READY");
    await heartbeat("c1-0", t0 + 50);
    await heartbeat("c1-1", t0 + 50);
    await cycle(t0 + 50);
    await same();
    // Silent past heartbeatTimeout + fenceGrace (30 s + 10 s, R9): DOWN.
    await heartbeat("c1-0", t0 + 95);
    await cycle(t0 + 95);
    s = await same();
    expect(Object.values(s.nodes).sort()).toEqual(["DOWN", "READY"]);
    expect(Object.values(s.jobs).some((j) => j.requeues > 0)).toBe(true);

    // The DOWN node's agent comes back healthy: READY in both.
    await heartbeat("c1-1", t0 + 105);
    s = await same();
    expect(Object.values(s.nodes)).toEqual(["READY", "READY"]);
  });
});

describe("the database applier conforms to the core's cluster model when a job is moved (R12)", () => {
  const c = conformance("cluster_model_move");
  const { t0, add, cycle, same, exited, heartbeat } = c;
  const beat = async (at: number) => {
    await heartbeat("c1-0", at);
    await heartbeat("c1-1", at);
  };
  const runsOn = async (name: string, at: number) =>
    (await assignmentsFor(c.db.prisma, c.world.nodeIds[name]!, new Date(at * 1000))).run.map((r) => String(r.jobId));
  const stopsOn = async (name: string, at: number) =>
    (await assignmentsFor(c.db.prisma, c.world.nodeIds[name]!, new Date(at * 1000))).stop.map((r) => String(r.jobId));

  it("moves an unallocated job to free GPUs of another node: it never runs twice, never waits in the queue, and the job it made room for waits for its old copy", async () => {
    // c1-0: a short allocated job and an unallocated one; then c1-1: a protected job on half the node.
    const filler = await add({ command: "x", gpus: 4, minRuntime: 600 });
    const free = await add({ command: "x", gpus: 4, minRuntime: 0, resumable: true });
    await cycle(t0);
    const kept = await add({ command: "x", gpus: 4, minRuntime: 7200 });
    await cycle(t0 + 5);
    let s = await same();
    expect([s.jobs[filler]!.state, s.jobs[free]!.state, s.jobs[kept]!.state]).toEqual(["RUNNING", "RUNNING", "RUNNING"]);
    expect(await runsOn("c1-1", t0 + 5)).toEqual([kept]);
    await exited(filler, 0, t0 + 700);

    // 31 minutes on (consolidationMinAge: 30): an 8-GPU job fits on no node; the free job moves to c1-1.
    const at = t0 + 31 * 60;
    await beat(at);
    const big = await add({ command: "x", gpus: 8, minRuntime: 600 });
    const r = await cycle(at);
    expect(r.plan.find((o) => o.op === "PREEMPT")).toMatchObject({ jobId: free, reasonCode: "CONSOLIDATION", byJobId: big });
    const move = r.plan.find((o) => o.op === "START" && o.jobId === free);
    expect(move).toMatchObject({ afterExitOf: [free], startBy: at + 10, placement: [{ nodeId: c.world.nodeIds["c1-1"] }] });
    s = await same();
    expect(s.jobs[free]).toEqual({ state: "RUNNING", startedAt: at + 10, graceUntil: at + 10, requeues: 0 });
    expect(s.jobs[big]).toMatchObject({ state: "RUNNING", startedAt: at + 10 });
    // Its old copy is told to stop; its new node does not launch it yet; the big job waits on c1-0.
    expect(await stopsOn("c1-0", at)).toEqual([free]);
    expect(await runsOn("c1-0", at)).toEqual([big]);
    expect((await runsOn("c1-1", at)).sort()).toEqual([kept]);
    // The next cycle sees it on its new GPUs (not pending, not moved again).
    await cycle(at + 5);
    await same();

    // The old copy exits: not a requeue, not a failure; now its new node runs it.
    await exited(free, null, at + 9);
    s = await same();
    expect(s.jobs[free]).toEqual({ state: "RUNNING", startedAt: at + 10, graceUntil: null, requeues: 0 });
    expect((await runsOn("c1-1", at + 9)).sort()).toEqual([free, kept].sort());
    expect(await stopsOn("c1-0", at + 9)).toEqual([]);
    const events = await c.db.prisma.jobEvent.findMany({ where: { jobId: Number(free) }, orderBy: { id: "asc" } });
    expect(events.map((e) => [e.kind, e.reasonCode]).slice(-3)).toEqual([
      ["PREEMPTED", "CONSOLIDATION"],
      ["STARTED", "CONSOLIDATION"],
      ["MOVED", "CONSOLIDATION"],
    ]);
    await beat(at + 20);
    await cycle(at + 20);
    s = await same();
    expect(s.jobs[free]!.state).toBe("RUNNING");
  });
});
