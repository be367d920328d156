import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@tranche/domain";
import { loadCycleInput, policyOverridesFromEnv } from "@tranche/domain/runtime";
import { classifyJob } from "@tranche/scheduler-core";
import { callRest, goodJob, makeWorld, type World } from "./fixtures";

// The lane a job page, the job list and the queue show is the one the worker orders the job by: with
// the debug lane's bounds of TRANCHE_POLICY (worker and web app set alike), not the defaults.

let w: World;
let token: string;

beforeAll(async () => {
  w = await makeWorld("api_lane_policy");
  token = (await createApiToken(w.db.prisma, w.users.ada, { name: "test" })).token;
});
afterEach(() => {
  delete process.env.TRANCHE_POLICY;
});
afterAll(async () => {
  await w?.db.drop();
});

describe("a job's lane under the policy's debug bounds", () => {
  it("a 20-minute job is in the debug lane where the debug lane's maximum runtime is 30 minutes", async () => {
    const id = (await w.caller("ada").job.submit({ ...goodJob, gpus: 4, minRuntime: "10m", maxRuntime: "20m" })).id;
    const lanes = async () => {
      const job = (await callRest(w, "GET", `/jobs/${id}`, { token })).body.job;
      const queue = (await callRest(w, "GET", "/queue/h100", { token })).body;
      const row = (queue.pending as { id: number; lane: string }[]).find((j) => j.id === id);
      const listed = ((await callRest(w, "GET", "/jobs", { token })).body.jobs as { id: number; lane: string }[]).find(
        (j) => j.id === id,
      );
      return [job.lane, row?.lane, listed?.lane];
    };
    // What the worker decides with: the cluster's policy under the same overrides.
    const workerLane = async () => {
      const cluster = await w.db.prisma.cluster.findUniqueOrThrow({ where: { name: "h100" } });
      const overrides = policyOverridesFromEnv(process.env.TRANCHE_POLICY);
      const { policy } = await loadCycleInput(w.db.prisma, cluster.id, Math.floor(Date.now() / 1000), overrides);
      return classifyJob({ gpus: 4, minRuntime: 600, maxRuntime: 1200, gracePeriod: null }, true, policy).lane;
    };

    expect([await lanes(), await workerLane()]).toEqual([["ALLOCATED", "ALLOCATED", "ALLOCATED"], "ALLOCATED"]);
    process.env.TRANCHE_POLICY = JSON.stringify({ debugMaxRuntime: 1800 });
    expect([await lanes(), await workerLane()]).toEqual([["DEBUG", "DEBUG", "DEBUG"], "DEBUG"]);
  });
});
