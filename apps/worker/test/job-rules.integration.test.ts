import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "@tranche/db/testing";
import { cancelArray, setWebhook } from "@tranche/domain";
import { startStack, submit, waitFor, type Stack, type World } from "./harness";

// Arrays, dependencies, retries and notifications through the real worker, agents and Postgres.
describe("arrays, dependencies, retries and notifications on real agents", () => {
  let stack: Stack;
  let db: TestDatabase;
  let world: World;
  let hooks: Server;
  const received: { kind: string; jobId: number; title: string }[] = [];

  beforeAll(async () => {
    hooks = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        received.push(JSON.parse(body) as (typeof received)[number]);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((ok) => hooks.listen(0, "127.0.0.1", ok));
    const port = (hooks.address() as { port: number }).port;
    stack = await startStack("job_rules", {
      nodes: 2,
      // The receiver listens on 127.0.0.1: allowed only because the lab says its hook receivers are internal.
      beforeProcesses: (d, w) =>
        withPrivateWebhooks(() => setWebhook(d.prisma, w.actor, `http://127.0.0.1:${port}/hook`)).then(() => undefined),
      workerEnv: { TRANCHE_WEBHOOK_ALLOW_PRIVATE: "1" },
    });
    ({ db, world } = stack);
  });

  afterAll(async () => {
    await stack?.stop();
    await new Promise((ok) => hooks?.close(ok));
  });

  it("an array of 20 one-GPU tasks with %5 never has more than 5 running, and each task sees its index", async () => {
    const first = await submit(db.prisma, world, {
      gpus: 1,
      array: "0-19%5",
      command: 'echo "task $TRANCHE_ARRAY_INDEX of $TRANCHE_ARRAY_JOB_ID"; sleep 1',
    });
    const tasks = await db.prisma.job.findMany({ where: { arrayJobId: first }, orderBy: { arrayIndex: "asc" } });
    expect(tasks.map((t) => t.arrayIndex)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect((tasks[7]!.env as Record<string, string>).TRANCHE_ARRAY_INDEX).toBe("7");
    let most = 0;
    let sawLimit = false;
    await waitFor(
      "every task to complete",
      async () => {
        const rows = await db.prisma.job.findMany({
          where: { arrayJobId: first },
          select: { state: true, reasonCode: true },
        });
        const running = rows.filter((r) => r.state === "RUNNING" || r.state === "STOPPING").length;
        most = Math.max(most, running);
        expect(running).toBeLessThanOrEqual(5);
        if (rows.some((r) => r.state === "PENDING" && r.reasonCode === "ARRAY_LIMIT")) sawLimit = true;
        return rows.every((r) => r.state === "COMPLETED");
      },
      90_000,
      50,
    );
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(5);
    expect(sawLimit).toBe(true);
    const log = await waitFor("task 7's output", async () => {
      const c = await db.prisma.jobLogChunk.findMany({ where: { jobId: tasks[7]!.id } });
      return c.length > 0 ? c.map((x) => x.text).join("") : null;
    });
    expect(log).toBe(`task 7 of ${first}\n`);
    // Twenty tasks started and ended through the real plan and agents notify twice, not forty times.
    const notices = await db.prisma.notification.findMany({
      where: { jobId: { in: tasks.map((t) => t.id) } },
      orderBy: { id: "asc" },
    });
    expect(notices.map((n) => [n.jobId, n.kind, n.title])).toEqual([
      [first, "STARTED", `Array ${tasks[0]!.name} (#${first}) started: 20 tasks`],
      [first, "FINISHED", `Array ${tasks[0]!.name} (#${first}) ended: all 20 tasks finished`],
    ]);
  });

  it("a dependent job waits with its reason while its parent runs, and starts after the parent finished", async () => {
    const parent = await submit(db.prisma, world, { gpus: 1, command: "sleep 3" });
    const child = await submit(db.prisma, world, { gpus: 1, after: [`${parent}:ok`], command: "true" });
    const waiting = await waitFor("the child's dependency reason", async () => {
      const j = await db.prisma.job.findUniqueOrThrow({ where: { id: child } });
      return j.reasonCode === "DEPENDENCY" ? j : null;
    });
    expect(waiting.state).toBe("PENDING");
    expect(waiting.reasonSentence).toContain(`Waiting for job ${parent} to finish successfully`);
    const done = await waitFor(
      "the child to complete",
      async () => {
        const j = await db.prisma.job.findUniqueOrThrow({ where: { id: child } });
        return j.state === "COMPLETED" ? j : null;
      },
      60_000,
    );
    const p = await db.prisma.job.findUniqueOrThrow({ where: { id: parent } });
    expect(p.state).toBe("COMPLETED");
    expect(done.startedAt!.getTime()).toBeGreaterThanOrEqual(p.finishedAt!.getTime());
  });

  it("a failing job is retried with a reason each time, and a job that needed it to succeed never starts and says why", async () => {
    const parent = await submit(db.prisma, world, { gpus: 1, retries: 2, command: "exit 3" });
    const child = await submit(db.prisma, world, { gpus: 1, after: [String(parent)], command: "true" });
    const failed = await waitFor(
      "the parent to fail for good",
      async () => {
        const j = await db.prisma.job.findUniqueOrThrow({ where: { id: parent } });
        return j.state === "FAILED" ? j : null;
      },
      60_000,
    );
    expect(failed.retryCount).toBe(2);
    const retries = await db.prisma.jobEvent.findMany({ where: { jobId: parent, kind: "RETRIED" }, orderBy: { id: "asc" } });
    expect(retries).toHaveLength(2);
    expect(retries[0]!.sentence).toContain("Failed (exit code 3); retry 1 of 2: requeued with its original submit time.");
    expect(retries[1]!.sentence).toContain("Failed (exit code 3); retry 2 of 2: requeued with its original submit time.");
    const never = await waitFor("the child to say it never starts", async () => {
      const j = await db.prisma.job.findUniqueOrThrow({ where: { id: child } });
      return j.reasonCode === "DEPENDENCY_NEVER_SATISFIED" ? j : null;
    });
    expect(never.state).toBe("PENDING");
    expect(never.reasonSentence).toContain(`job ${parent} failed`);
  });

  it("notifies the owner in the inbox and on their webhook: start, finish, retries and failure", async () => {
    const kinds = new Set((await db.prisma.notification.findMany({ where: { userId: world.actor.id } })).map((n) => n.kind));
    // (The fake GPUs report idle, so squatting flags may come too: tested on their own in the API tests.)
    expect([...kinds]).toEqual(expect.arrayContaining(["FAILED", "FINISHED", "RETRIED", "STARTED"]));
    await waitFor("the webhook to receive a failure", async () => received.some((r) => r.kind === "FAILED"), 20_000);
    expect(received.some((r) => r.kind === "STARTED" && /started on c1/.test(r.title))).toBe(true);
    const failedHooks = await db.prisma.notification.count({ where: { webhookState: "FAILED" } });
    expect(failedHooks).toBe(0);
  });

  it("cancelling an array cancels every task that has not ended", async () => {
    const first = await submit(db.prisma, world, { gpus: 1, array: "1,3,5-7%1", command: "sleep 30" });
    await waitFor("one task to run", async () =>
      (await db.prisma.job.count({ where: { arrayJobId: first, state: "RUNNING" } })) === 1 ? true : null,
    );
    const r = await cancelArray(db.prisma, world.actor, first);
    expect(r).toEqual({ arrayId: first, cancelled: 4, stopping: 1 });
    await waitFor("every task to end cancelled", async () =>
      (await db.prisma.job.count({ where: { arrayJobId: first, state: "CANCELLED" } })) === 5 ? true : null,
    );
  });
});

async function withPrivateWebhooks<T>(fn: () => Promise<T>): Promise<T> {
  process.env.TRANCHE_WEBHOOK_ALLOW_PRIVATE = "1";
  try {
    return await fn();
  } finally {
    delete process.env.TRANCHE_WEBHOOK_ALLOW_PRIVATE;
  }
}
