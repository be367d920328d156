import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import { getJob } from "@tranche/domain";
import { acquireOrRenewLease, applyCyclePlan, handleHeartbeat, hashSecret, loadCycleInput } from "@tranche/domain/runtime";
import { runCycle } from "@tranche/scheduler-core";
import { fakeGpus, makeWorld, submit, type World } from "./harness";

/**
 * A running job the scheduler preempts and does not requeue (not resumable, requeue NEVER) ends
 * PREEMPTED, through the worker's applier and an agent's exit report: not FAILED, which reads as its
 * own code failing. Its `--retries` do not apply; `:ok` dependants can never start, `:any` ones may.
 */
describe("a preempted run that is not requeued", () => {
  let db: TestDatabase;
  let world: World;
  const t0 = Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    db = await createTestDatabase("preempted_end");
    world = await makeWorld(db.prisma, { nodes: 1 });
    expect(await acquireOrRenewLease(db.prisma, "test", 600)).toBe(true);
    await db.prisma.node.update({ where: { id: world.nodeIds["c1-0"]! }, data: { agentCredentialHash: hashSecret("cred") } });
  });
  afterAll(async () => {
    await db?.drop();
  });

  async function cycle(now: number) {
    const input = await loadCycleInput(db.prisma, world.clusterId, now);
    const result = runCycle(input.snapshot, input.policy, now);
    await applyCyclePlan(db.prisma, input, result, "test", { loadMs: 0, decideMs: 0 });
    return result;
  }

  /** The node's agent reports the job's processes gone (SIGKILL at the end of its grace). */
  async function exited(jobId: number, at: number) {
    const seg = await db.prisma.runSegment.findFirstOrThrow({ where: { jobId, endedAt: null } });
    const job = { jobId, segmentId: String(seg.id), status: "EXITED", pid: 1, launchedAt: null, exitCode: null };
    const r = await handleHeartbeat(
      db.prisma,
      "cred",
      {
        nodeName: "c1-0",
        agentVersion: "test",
        health: { healthy: true, errors: [] },
        gpus: fakeGpus(),
        busyPercent: 50,
        jobs: [{ ...job, signal: "SIGKILL", endedAt: new Date(at * 1000).toISOString() }],
        logs: [],
      },
      new Date(at * 1000),
    );
    expect(r.status).toBe(200);
  }

  it("ends PREEMPTED with its event and notification, is not retried, and its :ok dependants never start", async () => {
    const victim = await submit(db.prisma, world, {
      command: "x",
      gpus: 8,
      minRuntime: 0,
      requeue: false,
      retries: 2,
      secretEnv: { TOKEN: "s3cret" },
      name: "victim",
    });
    const okChild = await submit(db.prisma, world, { command: "x", gpus: 8, minRuntime: 0, after: [`${victim}:ok`] });
    const anyChild = await submit(db.prisma, world, { command: "x", gpus: 8, minRuntime: 0, after: [`${victim}:any`] });
    await cycle(t0);
    expect((await db.prisma.job.findUniqueOrThrow({ where: { id: victim } })).state).toBe("RUNNING");

    // Allocated work preempts it; the core decides it is not requeued.
    await submit(db.prisma, world, { command: "x", gpus: 8, minRuntime: 600, name: "paid" });
    const r = await cycle(t0 + 10);
    expect(r.plan.find((o) => o.op === "PREEMPT")).toMatchObject({ jobId: String(victim), requeue: false });
    await exited(victim, t0 + 20);

    const job = await db.prisma.job.findUniqueOrThrow({ where: { id: victim } });
    expect([job.state, job.retryCount, job.requeueCount]).toEqual(["PREEMPTED", 0, 0]);
    expect(job.finishedAt).toEqual(new Date((t0 + 20) * 1000));
    // An ended job's secret values are scrubbed, PREEMPTED as every other end.
    expect(job.secretEnv).toEqual({ TOKEN: "" });
    const last = await db.prisma.jobEvent.findFirstOrThrow({ where: { jobId: victim }, orderBy: { id: "desc" } });
    expect([last.kind, last.reasonCode]).toEqual(["PREEMPTED_ENDED", "PREEMPT"]);
    expect(last.sentence).toBe(
      "On node c1-0: Preempted run ended (signal SIGKILL); not requeued (not resumable and did not ask to be).",
    );
    const segment = await db.prisma.runSegment.findFirstOrThrow({ where: { jobId: victim } });
    expect(segment.endReason).toBe("PREEMPT");
    // The owner is told, as before, and the notification carries the job's end state.
    const n = await db.prisma.notification.findFirstOrThrow({ where: { jobId: victim }, orderBy: { id: "desc" } });
    expect(n.title).toBe(`Job #${victim} (victim) was preempted and not requeued`);
    expect(n.kind).toBe("PREEMPTED");
    expect((n.details as { event: string; state: string }).state).toBe("PREEMPTED");
    // What the API, the web app and the CLI read.
    expect((await getJob(db.prisma, world.actor, victim)).state).toBe("PREEMPTED");

    await cycle(t0 + 30);
    const ok = await db.prisma.job.findUniqueOrThrow({ where: { id: okChild } });
    expect([ok.state, ok.reasonCode]).toEqual(["PENDING", "DEPENDENCY_NEVER_SATISFIED"]);
    expect(ok.reasonSentence).toContain(`job ${victim} was preempted and not requeued`);
    const any = await db.prisma.job.findUniqueOrThrow({ where: { id: anyChild } });
    expect(any.reasonCode).not.toMatch(/^DEPENDENCY/);
  });

  it("files each end under the state it ended in: a kill or a loss is not a failure either", async () => {
    const jobId = await submit(db.prisma, world, { name: "ends", gpus: 1, command: "true" });
    const at = new Date();
    const ended = (kind: string, details: object) =>
      db.prisma.jobEvent.create({ data: { jobId, at, kind, sentence: kind, details, actorKind: "SCHEDULER" } });
    await ended("KILLED", {});
    await ended("LOST", { requeued: false });
    await ended("FAILED", {});
    const kinds = (
      await db.prisma.notification.findMany({ where: { jobId, kind: { not: "STARTED" } }, orderBy: { id: "asc" } })
    ).map((n) => n.kind);
    expect(kinds).toEqual(["KILLED", "LOST", "FAILED"]);
  });
});
