import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assignmentsFor } from "@tranche/domain/runtime";
import { callRest, goodJob, makeWorld, type World } from "./fixtures";

// Who reads a job's command, env and logs: its owner and admins; managers of its budget's subtree;
// operators the command with env values masked; nobody a secretEnv value after submit.

let w: World;
let jobId: number;
const SECRET = "hf_TOPSECRET_123";
beforeAll(async () => {
  w = await makeWorld("api_job_secrets");
  const job = await w.caller("ada").job.submit({ ...goodJob, env: { API_KEY: "sk-plain-1" }, secretEnv: { HF_TOKEN: SECRET } });
  jobId = job.id;
  expect(JSON.stringify(job)).not.toContain(SECRET);
  expect(job.secretEnvNames).toEqual(["HF_TOKEN"]);
  await w.db.prisma.jobLogChunk.create({ data: { jobId, stream: "stdout", text: "step 1\n", at: new Date() } });
});
afterAll(async () => {
  await w?.db.drop();
});

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "OK";
  } catch (e) {
    if (e instanceof TRPCError) return e.code;
    throw e;
  }
}

async function seen(who: "ada" | "maya" | "victor" | "omar" | "admin" | "other") {
  const c = w.caller(who);
  const one = await c.job.get({ id: jobId });
  const detail = await c.job.detail({ id: jobId });
  const listed = who === "other" || who === "ada" ? one : (await c.job.list({ scope: "all" })).find((j) => j.id === jobId)!;
  for (const v of [one, detail.job, listed]) expect(JSON.stringify(v)).not.toContain(SECRET);
  expect(listed.env).toEqual(one.env);
  expect(listed.command).toBe(one.command);
  expect(detail.job.env).toEqual(one.env);
  return { job: one, detailsVisible: detail.detailsVisible, logs: await code(c.job.logs({ id: jobId })) };
}

describe("job details", () => {
  it("a manager of the job's subtree reads its env and logs", async () => {
    const s = await seen("maya"); // manages lab/language
    expect(s.job.env).toEqual({ API_KEY: "sk-plain-1" });
    expect(s.job.command).toBe(goodJob.command);
    expect(s.job.secretEnvNames).toEqual(["HF_TOKEN"]);
    expect(s.logs).toBe("OK");
  });

  it("a manager of another subtree reads neither command, env nor logs", async () => {
    const s = await seen("victor"); // manages lab/vision
    expect(s.job.command).toBe("(hidden)");
    expect(s.job.env).toEqual({});
    expect(s.job.secretEnvNames).toEqual([]);
    expect(s.detailsVisible).toBe(false);
    expect(s.logs).toBe("FORBIDDEN");
  });

  it("an operator reads the command with env values masked", async () => {
    const s = await seen("omar");
    expect(s.job.command).toBe(goodJob.command);
    expect(s.job.env).toEqual({ API_KEY: "***" });
    expect(s.detailsVisible).toBe(true);
  });

  it("the owner and admins read env, but no one a secret value", async () => {
    for (const who of ["ada", "admin"] as const) {
      const s = await seen(who);
      expect(s.job.env).toEqual({ API_KEY: "sk-plain-1" });
      expect(s.job.secretEnvNames).toEqual(["HF_TOKEN"]);
    }
    expect((await seen("other")).job.env).toEqual({});
  });

  it("an operator holding a job gets the masked view back", async () => {
    const held = await w.caller("omar").job.hold({ id: jobId });
    expect(held.env).toEqual({ API_KEY: "***" });
    await w.caller("omar").job.release({ id: jobId });
  });

  it("REST never returns a secret value either", async () => {
    const { token } = await w.caller("ada").token.create({ name: "t" });
    const sub = await callRest(w, "POST", "/jobs", {
      token,
      body: { ...goodJob, secretEnv: { DB_PASSWORD: "pw-SECRET-9" }, idempotencyKey: "k1" },
    });
    expect(sub.status).toBe(201);
    const again = await callRest(w, "POST", "/jobs", {
      token,
      body: { ...goodJob, secretEnv: { DB_PASSWORD: "pw-SECRET-9" }, idempotencyKey: "k1" },
    });
    for (const r of [
      sub,
      again,
      await callRest(w, "GET", `/jobs/${sub.body.job.id}`, { token }),
      await callRest(w, "GET", "/jobs", { token }),
      await callRest(w, "GET", `/jobs/${sub.body.job.id}/events`, { token }),
    ])
      expect(JSON.stringify(r.body)).not.toContain("pw-SECRET-9");
    expect(sub.body.job.secretEnvNames).toEqual(["DB_PASSWORD"]);
  });

  it("the values leave the database once the job has ended; the names stay", async () => {
    const job = await w.caller("ada").job.submit({ ...goodJob, secretEnv: { DB_PASSWORD: "pw-ENDED-3" } });
    const stored = async () => (await w.db.prisma.job.findUniqueOrThrow({ where: { id: job.id } })).secretEnv;
    expect(await stored()).toEqual({ DB_PASSWORD: "pw-ENDED-3" }); // a pending job keeps it for its start
    await w.caller("ada").job.cancel({ id: job.id });
    expect(await stored()).toEqual({ DB_PASSWORD: "" });
    expect((await w.caller("ada").job.get({ id: job.id })).secretEnvNames).toEqual(["DB_PASSWORD"]);
  });

  it("refuses a name given both as env and secretEnv, naming it", async () => {
    const before = await w.counts();
    await expect(w.caller("ada").job.submit({ ...goodJob, env: { TOKEN: "a" }, secretEnv: { TOKEN: "b" } })).rejects.toThrow(
      /TOKEN is in both env and secretEnv/,
    );
    expect(await w.counts()).toEqual(before);
  });
});

describe("secretEnv on the node", () => {
  it("reaches the job's process through the agent protocol, with the plain env", async () => {
    const job = await w.db.prisma.job.findUniqueOrThrow({ where: { id: jobId } });
    const node = await w.db.prisma.node.findFirstOrThrow({ where: { clusterId: job.clusterId } });
    const now = new Date();
    const seg = await w.db.prisma.runSegment.create({
      data: { jobId, clusterId: job.clusterId, budgetId: job.budgetId, gpus: 8, startedAt: now, charged: true },
    });
    await w.db.prisma.segmentPlacement.create({
      data: { segmentId: seg.id, nodeId: node.id, gpuIndexes: [0, 1, 2, 3, 4, 5, 6, 7] },
    });
    await w.db.prisma.job.update({ where: { id: jobId }, data: { state: "RUNNING", startedAt: now } });
    const { run } = await assignmentsFor(w.db.prisma, node.id, now);
    expect(run.find((r) => r.jobId === jobId)!.env).toEqual({ API_KEY: "sk-plain-1", HF_TOKEN: SECRET });
  });
});
