import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@tranche/domain";
import { loadCycleInput, refreshStartForecasts } from "@tranche/domain/runtime";
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
});
