import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "@tranche/contracts";
import { getQueue, listJobs, listNodes } from "@tranche/domain";
import { loadCycleInput } from "@tranche/domain/runtime";
import { runCycle } from "@tranche/scheduler-core";
import { makeWorld, type World } from "./fixtures";

// Reason sentences name people by display name, never by database id: the worker's snapshot carries
// each job's user name (one join), and the core's per-user debug cap sentence uses it.
let w: World;
let clusterId: string;

beforeAll(async () => {
  w = await makeWorld("api_snapshot_names");
  const p = w.db.prisma;
  const cluster = await p.cluster.findUniqueOrThrow({ where: { name: "h100" } });
  clusterId = cluster.id;
  // One 8-GPU node takes work; the others are cordoned.
  const nodes = await p.node.findMany({ where: { clusterId }, orderBy: { name: "asc" } });
  await p.node.updateMany({
    where: { clusterId },
    data: { state: "CORDONED", health: "HEALTHY", lastHeartbeatAt: new Date() },
  });
  const node = await p.node.update({ where: { id: nodes[0]!.id }, data: { state: "READY", gpuCount: 8 } });
  const pre = await p.budgetTreeNode.findUniqueOrThrow({ where: { path: "lab/language/pretraining" } });
  const video = await p.budgetTreeNode.findUniqueOrThrow({ where: { path: "lab/vision/video" } });
  const startedAt = new Date(Date.now() - 60_000);
  // Running on it: a 4-GPU debug job of Ada's and a protected 4-GPU job of another user.
  const running = async (userId: string, budgetId: string, gpuIndexes: number[], debug: boolean) => {
    const job = await p.job.create({
      data: {
        clusterId,
        budgetId,
        userId,
        name: debug ? "debug-run" : "train",
        gpus: 4,
        minRuntimeSec: debug ? 600 : 3600,
        maxRuntimeSec: debug ? 600 : null,
        resumable: false,
        priority: 0,
        requeuePolicy: "REQUEUE",
        command: "sleep 1",
        env: {},
        state: "RUNNING",
        submittedAt: startedAt,
        queuedAt: startedAt,
        startedAt,
        protectedUntil: new Date(startedAt.getTime() + (debug ? 600_000 : 3_600_000)),
      },
    });
    const seg = await p.runSegment.create({
      data: { jobId: job.id, clusterId, budgetId, gpus: 4, startedAt, charged: true },
    });
    await p.segmentPlacement.create({ data: { segmentId: seg.id, nodeId: node.id, gpuIndexes } });
  };
  await running(w.users.ada.id, pre.id, [0, 1, 2, 3], true);
  await running(w.users.other.id, video.id, [4, 5, 6, 7], false);
  // Ada's next debug job (8 GPUs) is over her per-user debug cap (4 + 8 > 8): it waits as regular work.
  await w.caller("ada").job.submit({
    cluster: "h100",
    budget: "lab/language/pretraining",
    gpus: 8,
    minRuntime: "10m",
    maxRuntime: "10m",
    resumable: false,
    priority: 0,
    command: "python debug.py",
    env: {},
    name: "debug-8",
  });
});
afterAll(async () => {
  await w?.db.drop();
});

describe("snapshot user names", () => {
  it("loads pending and running jobs with their users' display names", async () => {
    const { snapshot } = await loadCycleInput(w.db.prisma, clusterId, Math.floor(Date.now() / 1000));
    const mine = snapshot.pending.filter((j) => j.userId === w.users.ada.id);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.userName).toBe("Ada Researcher");
    const others = snapshot.running.filter((j) => j.userId === w.users.other.id);
    expect(others).toHaveLength(1);
    expect(others[0]!.userName).toBe(w.users.other.name);
  });

  it("the debug cap sentence names the user, not the id", async () => {
    const now = Math.floor(Date.now() / 1000);
    const { snapshot, policy } = await loadCycleInput(w.db.prisma, clusterId, now);
    const result = runCycle(snapshot, policy, now);
    const capped = [...result.pending.values()].filter((r) => r.code === "DEBUG_USER_CAP");
    expect(capped).toHaveLength(1);
    expect(capped[0]!.sentence).toContain("Ada Researcher");
    expect(capped[0]!.sentence).not.toContain(w.users.ada.id);
    expect(capped[0]!.sentence).toMatch(
      /^Debug lane cap: user Ada Researcher already holds 4 debug GPUs of the 8 allowed per person/,
    );
  });

  it("names a person without a name by a stand-in, never by their e-mail", async () => {
    // A row written before names were checked: sentences reach every reader, who may not see e-mails.
    await w.db.prisma.user.update({ where: { id: w.users.ada.id }, data: { name: "" } });
    try {
      const now = Math.floor(Date.now() / 1000);
      const { snapshot, policy } = await loadCycleInput(w.db.prisma, clusterId, now);
      const ada = [...snapshot.pending, ...snapshot.running].filter((j) => j.userId === w.users.ada.id);
      expect(ada.map((j) => j.userName)).toEqual(["(no name)", "(no name)"]);
      const capped = [...runCycle(snapshot, policy, now).pending.values()].filter((r) => r.code === "DEBUG_USER_CAP");
      expect(capped[0]!.sentence).toMatch(/^Debug lane cap: user \(no name\) already holds/);
      expect(capped[0]!.sentence).not.toContain(w.users.ada.email);
    } finally {
      await w.db.prisma.user.update({ where: { id: w.users.ada.id }, data: { name: "Ada Researcher" } });
    }
  });

  it("caps a long stored name wherever it repeats per job: snapshot, queue, job list, GPU cells", async () => {
    // A name written before names were checked (no entry point accepts it now): 5,000 characters.
    const long = "Ada " + "A".repeat(4996);
    const capped = long.slice(0, LIMITS.personNameChars);
    await w.db.prisma.user.update({ where: { id: w.users.ada.id }, data: { name: long } });
    try {
      const { snapshot } = await loadCycleInput(w.db.prisma, clusterId, Math.floor(Date.now() / 1000));
      const ada = [...snapshot.pending, ...snapshot.running].filter((j) => j.userId === w.users.ada.id);
      expect(ada.map((j) => j.userName)).toEqual([capped, capped]);
      const queue = await getQueue(w.db.prisma, "h100");
      const adaRows = [...queue.pending, ...queue.running].filter((j) => j.user.startsWith("Ada "));
      expect(adaRows.map((j) => j.user)).toEqual([capped, capped]);
      const jobs = await listJobs(w.db.prisma, w.users.ada, { active: true });
      expect(jobs.map((j) => j.user.name)).toEqual([capped, capped]);
      const cells = (await listNodes(w.db.prisma, "h100")).flatMap((n) => n.gpus).filter((c) => c.user?.startsWith("Ada "));
      expect(cells.map((c) => c.user)).toEqual([capped, capped, capped, capped]);
      // Everyone else's name reads as before.
      expect(queue.running.find((j) => j.user === w.users.other.name)).toBeDefined();
    } finally {
      await w.db.prisma.user.update({ where: { id: w.users.ada.id }, data: { name: "Ada Researcher" } });
    }
  });
});
