import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { goodJob, makeWorld, type World } from "./fixtures";

// Numbers the pages show must be true. The overview's GPU numbers: a job started by preemption is RUNNING before its victims (STOPPING)
// have left, so counting both showed more GPUs in use than the cluster has (90 of 88).
let w: World;

beforeAll(async () => {
  w = await makeWorld("api_numbers");
});
afterAll(async () => {
  await w?.db.drop();
});

describe("cluster.list", () => {
  it("counts GPUs in use once: a start still waiting for its victims to exit is held, not running", async () => {
    const p = w.db.prisma;
    const cluster = await p.cluster.findUniqueOrThrow({ where: { name: "b200" }, include: { nodes: true } });
    const gpuCount = cluster.nodes.reduce((s, n) => s + n.gpuCount, 0);
    const budget = await p.budgetTreeNode.findUniqueOrThrow({ where: { path: "lab/language/pretraining" } });
    const base = { clusterId: cluster.id, budgetId: budget.id, userId: w.users.ada.id, minRuntimeSec: 3600, command: "x" };
    const now = Date.now();
    // Everything but 8 GPUs runs; an 8-GPU victim is STOPPING; its 8-GPU preemptor waits for it.
    await p.job.create({
      data: { ...base, name: "fill", gpus: gpuCount - 8, state: "RUNNING", startedAt: new Date(now - 60_000) },
    });
    await p.job.create({ data: { ...base, name: "victim", gpus: 8, state: "STOPPING", startedAt: new Date(now - 120_000) } });
    await p.job.create({ data: { ...base, name: "preemptor", gpus: 8, state: "RUNNING", startedAt: new Date(now + 60_000) } });
    const b200 = (await w.caller("ada").cluster.list()).find((c) => c.name === "b200")!;
    expect(b200.gpuCount).toBe(gpuCount);
    expect(b200.runningGpus).toBe(gpuCount);
    expect(b200.runningGpus).toBeLessThanOrEqual(b200.gpuCount);
    expect(b200.runningJobs).toBe(2);
    expect(b200.awaitingGpus).toBe(8);
    expect(b200.awaitingJobs).toBe(1);
  });
});

describe("queue.get counts", () => {
  it("counts the same GPUs in use as the overview, and marks the start that waits for exits", async () => {
    const q = await w.caller("ada").queue.get({ cluster: "b200" });
    expect(q.counts.runningGpus).toBe(q.cluster.gpus);
    expect(q.counts.awaitingGpus).toBe(8);
    expect(q.running.filter((r) => r.awaitingExits).map((r) => r.name)).toEqual(["preemptor"]);
  });
});

describe("GPUs in use once the start time of a preemptor has passed", () => {
  it("still counts a start as waiting while a preempted job holds its GPUs, so in use never exceeds the cluster", async () => {
    const p = w.db.prisma;
    const cluster = await p.cluster.findUniqueOrThrow({ where: { name: "h100" }, include: { nodes: true } });
    const gpuCount = cluster.nodes.reduce((s, n) => s + n.gpuCount, 0);
    const node = cluster.nodes[0]!;
    const budget = await p.budgetTreeNode.findUniqueOrThrow({ where: { path: "lab/language/pretraining" } });
    const base = { clusterId: cluster.id, budgetId: budget.id, userId: w.users.ada.id, minRuntimeSec: 3600, command: "x" };
    const now = Date.now();
    const all = Array.from({ length: node.gpuCount }, (_, i) => i);
    const run = async (name: string, state: "RUNNING" | "STOPPING", gpus: number, startedAt: Date, onNode: boolean) => {
      const job = await p.job.create({ data: { ...base, name, gpus, state, startedAt } });
      await p.runSegment.create({
        data: {
          jobId: job.id,
          clusterId: cluster.id,
          budgetId: budget.id,
          gpus,
          startedAt,
          charged: true,
          placements: onNode ? { create: [{ nodeId: node.id, gpuIndexes: all }] } : undefined,
        },
      });
    };
    await run("h-fill", "RUNNING", gpuCount - node.gpuCount, new Date(now - 60_000), false);
    // The victim's grace ended 5 s ago but its agent has not reported the exit yet.
    await run("h-victim", "STOPPING", node.gpuCount, new Date(now - 120_000), true);
    await run("h-preemptor", "RUNNING", node.gpuCount, new Date(now - 5_000), true);
    const h100 = (await w.caller("ada").cluster.list()).find((c) => c.name === "h100")!;
    expect(h100.runningGpus).toBe(gpuCount);
    expect(h100.awaitingGpus).toBe(node.gpuCount);
    const q = await w.caller("ada").queue.get({ cluster: "h100" });
    expect(q.counts.runningGpus).toBeLessThanOrEqual(q.cluster.gpus);
    expect(q.counts.awaitingGpus).toBe(node.gpuCount);
    expect(q.running.filter((r) => r.awaitingExits).map((r) => r.name)).toEqual(["h-preemptor"]);
  });
});

describe("job times", () => {
  it("stores the submit time in whole seconds, so a start in the same second never reads as earlier", async () => {
    const job = await w.caller("ada").job.submit({ ...goodJob, cluster: "b200" });
    // The scheduler's clock is whole seconds: a cycle in this very second starts it at this second.
    const cycleNow = Math.floor(Date.now() / 1000) * 1000;
    expect(Date.parse(job.submittedAt) % 1000).toBe(0);
    const row = await w.db.prisma.job.findUniqueOrThrow({ where: { id: job.id } });
    expect(row.submittedAt.getTime() % 1000).toBe(0);
    expect(row.queuedAt.getTime()).toBeLessThanOrEqual(cycleNow);
    expect(row.submittedAt.getTime()).toBeLessThanOrEqual(cycleNow);
  });
});

describe("reason times in JSON", () => {
  it("gives a reason's times as ISO 8601, and its sentence without raw timestamps", async () => {
    const job = await w.caller("ada").job.submit({ ...goodJob, cluster: "b200", name: "reasoned" });
    const t = 1_796_000_000;
    await w.db.prisma.job.update({
      where: { id: job.id },
      data: {
        reasonCode: "RESERVED_FOR",
        reasonSentence: "The free GPUs it fits on are reserved for job 130, which can start there 29m from now.",
        reasonDetails: { position: 1, gpus: 8, earliestStart: t, reservedFrom: t + 60, reservedForJobId: "130" },
        queuePosition: 1,
      },
    });
    const view = await w.caller("ada").job.get({ id: job.id });
    expect(view.reason?.details).toMatchObject({
      earliestStart: "2026-11-30T00:53:20.000Z",
      reservedFrom: "2026-11-30T00:54:20.000Z",
      reservedForJobId: "130",
      gpus: 8,
    });
    const row = (await w.caller("ada").queue.get({ cluster: "b200" })).pending.find((r) => r.id === job.id)!;
    expect(row.reasonDetails).toMatchObject({ earliestStart: "2026-11-30T00:53:20.000Z", reservedForJobId: "130" });
  });
});
