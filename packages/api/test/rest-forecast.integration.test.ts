import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@tranche/domain";
import { acquireOrRenewLease, applyCyclePlan, loadCycleInput, refreshStartForecasts } from "@tranche/domain/runtime";
import { runCycle } from "@tranche/scheduler-core";
import { callRest, goodJob, makeWorld, type World } from "./fixtures";

let w: World;
let token: string;

beforeAll(async () => {
  w = await makeWorld("api_rest_forecast");
  token = (await createApiToken(w.db.prisma, w.users.ada, { name: "test" })).token;
});
afterAll(async () => {
  await w?.db.drop();
});

describe("REST start forecast", () => {
  it("returns each pending job's estimatedStartAt in the job and the queue, after the jobs whose GPUs it takes", async () => {
    const cluster = await w.db.prisma.cluster.findUniqueOrThrow({ where: { name: "h100" }, include: { nodes: true } });
    const now = Math.floor(Date.now() / 1000);
    await w.db.prisma.node.updateMany({
      where: { clusterId: cluster.id },
      data: { state: "READY", health: "HEALTHY", lastHeartbeatAt: new Date(now * 1000) },
    });
    const gpus = cluster.nodes.reduce((a, n) => a + n.gpuCount, 0);
    const whole = { ...goodJob, gpus, minRuntime: "1h", maxRuntime: "1h" };
    const first = await callRest(w, "POST", "/jobs", { token, body: { ...whole, name: "first" } });
    const second = await callRest(w, "POST", "/jobs", { token, body: { ...whole, name: "second" } });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    const a = first.body.job.id as number;
    const b = second.body.job.id as number;

    // Before any forecast: null, and no reason invented.
    const before = await callRest(w, "GET", `/jobs/${b}`, { token });
    expect(before.body.job).toMatchObject({ estimatedStartAt: null, estimatedStartWhy: null, estimatedAt: null });

    const input = await loadCycleInput(w.db.prisma, cluster.id, now);
    await refreshStartForecasts(w.db.prisma, input.snapshot, input.policy, now);

    const ja = (await callRest(w, "GET", `/jobs/${a}`, { token })).body.job;
    const jb = (await callRest(w, "GET", `/jobs/${b}`, { token })).body.job;
    expect(ja.estimatedStartAt).toBe(new Date(now * 1000).toISOString());
    // The second takes the whole cluster once the first reaches its max runtime and its grace ends.
    const grace = input.policy.gracePeriod;
    expect(jb.estimatedStartAt).toBe(new Date((now + 3600 + grace) * 1000).toISOString());
    expect(jb.estimatedStartAfter).toEqual([a]);
    expect(jb.estimatedStartWhy).toBeNull();

    const queue = await callRest(w, "GET", "/queue/h100", { token });
    expect(queue.status, JSON.stringify(queue.body)).toBe(200);
    const row = (queue.body.pending as { id: number; estimatedStartAt: string | null }[]).find((r) => r.id === b);
    expect(row?.estimatedStartAt).toBe(jb.estimatedStartAt);

    // The first is cancelled: the second's forecast, made while it waited, names a job that has ended.
    // Until the next refresh it reads unknown and says why, in the job and in the queue; it never
    // names the ended job.
    expect((await callRest(w, "POST", `/jobs/${a}/cancel`, { token })).status).toBe(200);
    const outdated = {
      estimatedStartAt: null,
      estimatedStartWhy: "a job it was expected to follow has ended since the forecast was made",
      estimatedStartAfter: [],
    };
    expect((await callRest(w, "GET", `/jobs/${b}`, { token })).body.job).toMatchObject(outdated);
    const later = await callRest(w, "GET", "/queue/h100", { token });
    expect((later.body.pending as { id: number }[]).find((r) => r.id === b)).toMatchObject(outdated);
  });

  it("holding or releasing a job drops the forecast made for its other state", async () => {
    const cluster = await w.db.prisma.cluster.findUniqueOrThrow({ where: { name: "h100" } });
    const made = await callRest(w, "POST", "/jobs", { token, body: { ...goodJob, name: "held" } });
    const id = made.body.job.id as number;
    const now = Math.floor(Date.now() / 1000);
    const input = await loadCycleInput(w.db.prisma, cluster.id, now);
    await refreshStartForecasts(w.db.prisma, input.snapshot, input.policy, now);
    expect((await callRest(w, "GET", `/jobs/${id}`, { token })).body.job.estimatedAt).not.toBeNull();
    const none = { estimatedStartAt: null, estimatedStartWhy: null, estimatedStartAfter: [], estimatedAt: null };
    expect((await callRest(w, "POST", `/jobs/${id}/hold`, { token })).body.job).toMatchObject({ state: "HELD", ...none });

    await refreshStartForecasts(
      w.db.prisma,
      (await loadCycleInput(w.db.prisma, cluster.id, now + 1)).snapshot,
      input.policy,
      now + 1,
    );
    expect((await callRest(w, "GET", `/jobs/${id}`, { token })).body.job.estimatedStartWhy).toBe("it is held");
    expect((await callRest(w, "POST", `/jobs/${id}/release`, { token })).body.job).toMatchObject({ state: "PENDING", ...none });
    expect((await callRest(w, "POST", `/jobs/${id}/cancel`, { token })).status).toBe(200);
  });

  it("the job holding the cycle's reservation shows the reservation's start, saying so, before any forecast", async () => {
    const cluster = await w.db.prisma.cluster.findUniqueOrThrow({ where: { name: "h100" }, include: { nodes: true } });
    const gpus = cluster.nodes.reduce((a, n) => a + n.gpuCount, 0);
    const holder = await callRest(w, "POST", "/jobs", {
      token,
      body: { ...goodJob, gpus, minRuntime: "1h", maxRuntime: "1h", name: "holder" },
    });
    expect(holder.status, JSON.stringify(holder.body)).toBe(201);
    const id = holder.body.job.id as number;
    // One cycle: the job left from the test above takes the whole cluster, and this one reserves it
    // from when that one must end. No forecast is made.
    expect(await acquireOrRenewLease(w.db.prisma, "test", 60)).toBe(true);
    const now = Math.floor(Date.now() / 1000);
    const input = await loadCycleInput(w.db.prisma, cluster.id, now);
    const result = runCycle(input.snapshot, input.policy, now);
    await applyCyclePlan(w.db.prisma, input, result, "test", { loadMs: 0, decideMs: 0 }, {});
    const reservation = result.reservations.find((r) => r.jobId === String(id));
    expect(reservation?.from).toBeGreaterThan(now);
    const expected = {
      estimatedStartAt: new Date(reservation!.from * 1000).toISOString(),
      estimatedStartWhy: "when the GPUs reserved for it free up",
    };
    const job = (await callRest(w, "GET", `/jobs/${id}`, { token })).body.job;
    expect(job).toMatchObject({ ...expected, estimatedAt: new Date(now * 1000).toISOString() });
    const queue = await callRest(w, "GET", "/queue/h100", { token });
    expect((queue.body.pending as { id: number }[]).find((r) => r.id === id)).toMatchObject(expected);
    // The queue's reservations read as its rows do: the job's id as a number, nodes by name, the start
    // in ISO 8601 (they were the cycle's stored form: Unix seconds and internal node ids).
    const names = new Map((await w.db.prisma.node.findMany()).map((n) => [n.id, n.name]));
    expect((queue.body.reservations as { jobId: number }[]).find((r) => r.jobId === id)).toEqual({
      jobId: id,
      gpus: reservation!.gpus,
      nodes: reservation!.nodeIds.map((n) => names.get(n)),
      from: expected.estimatedStartAt,
    });
  });

  it("a debug-lane job holding the reservation is not shown its start: that one counts on victims R5 may refuse", async () => {
    const cluster = await w.db.prisma.cluster.findUniqueOrThrow({ where: { name: "h100" } });
    const debug = { ...goodJob, gpus: 2, minRuntime: 300, maxRuntime: 600, resumable: false, name: "debug" };
    const made = await callRest(w, "POST", "/jobs", { token, body: debug });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.job.lane).toBe("DEBUG");
    const id = made.body.job.id as number;
    const now = Math.floor(Date.now() / 1000) + 5;
    // A later cycle whose reservation this job holds (as the core makes one for a blocked debug job).
    await w.db.prisma.schedulingCycle.create({
      data: {
        clusterId: cluster.id,
        at: new Date(now * 1000),
        ...{ durationMs: 1, loadMs: 0, decideMs: 0, applyMs: 0, pendingCount: 1, runningCount: 1, started: 0, preempted: 0 },
        leaderId: "test",
        reservations: [{ jobId: String(id), gpus: 2, nodeIds: [], from: now + 600 }],
      },
    });
    const job = (await callRest(w, "GET", `/jobs/${id}`, { token })).body.job;
    expect(job).toMatchObject({ estimatedStartAt: null, estimatedStartWhy: null });
  });
});
