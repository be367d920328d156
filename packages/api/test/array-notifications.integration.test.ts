import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cancelArray, createApiToken } from "@tranche/domain";
import { callRest, goodJob, makeWorld, type World } from "./fixtures";

// A job array notifies once when its first task starts and once when its last task ends (written by the
// notification triggers, migration 20261207100000); other jobs notify as before. Starts and ends are
// recorded here as the worker and the agents record them: the job's state, then its event, in one
// transaction.
let w: World;
let token: string;

beforeAll(async () => {
  w = await makeWorld("array_notifications");
  token = (await createApiToken(w.db.prisma, w.users.ada, { name: "test" })).token;
  // Webhook deliveries follow the notifications: each one the owner gets is also waiting to be POSTed.
  await w.db.prisma.user.update({ where: { id: w.users.ada.id }, data: { webhookUrl: "https://hooks.example/t" } });
});
afterAll(async () => {
  await w?.db.drop();
});

const T0 = new Date("2026-12-07T08:00:00Z");
const minutes = (m: number) => new Date(T0.getTime() + m * 60_000);

async function submitArray(tasks: number): Promise<{ id: number; tasks: number[] }> {
  const r = await callRest(w, "POST", "/jobs", { token, body: { ...goodJob, gpus: 1, array: `0-${tasks - 1}` } });
  expect(r.status).toBe(201);
  const id = r.body.job.id as number;
  const rows = await w.db.prisma.job.findMany({ where: { arrayJobId: id }, orderBy: { arrayIndex: "asc" } });
  return { id, tasks: rows.map((t) => t.id) };
}

/** Jobs started by one plan: their states, then their STARTED events in one statement. */
async function start(ids: number[], at: Date): Promise<void> {
  await w.db.prisma.$transaction(async (tx) => {
    await tx.$executeRaw`UPDATE job SET state = 'RUNNING', "startedAt" = ${at} WHERE id = ANY(${ids}::int[])`;
    await tx.$executeRaw`
      INSERT INTO job_event ("jobId", at, kind, sentence, details, "actorKind")
      SELECT id, ${at}, 'STARTED', 'Started.', '{}'::jsonb, 'SCHEDULER'::"ActorKind" FROM unnest(${ids}::int[]) AS id`;
  });
}

type End = { state: string; event: string; details?: Record<string, unknown> };
const FINISHED: End = { state: "COMPLETED", event: "FINISHED" };
const FAILED: End = { state: "FAILED", event: "FAILED", details: { exitCode: 1 } };
const RETRIED: End = { state: "PENDING", event: "RETRIED", details: { exitCode: 1, requeued: true } };
const KILLED: End = { state: "KILLED", event: "KILLED" };
const LOST: End = { state: "LOST", event: "LOST", details: { requeued: false } };
const CANCELLED: End = { state: "CANCELLED", event: "CANCELLED" };

/** A run's end as an agent reports it: the job's state, then its event. */
async function endIn(tx: Parameters<Parameters<World["db"]["prisma"]["$transaction"]>[0]>[0], id: number, end: End, at: Date) {
  await tx.$executeRaw`UPDATE job SET state = ${end.state}::"JobState", "finishedAt" = ${at} WHERE id = ${id}`;
  await tx.$executeRaw`
    INSERT INTO job_event ("jobId", at, kind, sentence, details, "actorKind")
    VALUES (${id}, ${at}, ${end.event}, ${`${end.event} (test).`}, ${JSON.stringify(end.details ?? {})}::jsonb, 'AGENT'::"ActorKind")`;
}
const end = (id: number, e: End, at: Date) => w.db.prisma.$transaction((tx) => endIn(tx, id, e, at));

const noticesOf = (jobIds: number[]) =>
  w.db.prisma.notification.findMany({ where: { jobId: { in: jobIds } }, orderBy: { id: "asc" } });

describe("notifications of a job array", () => {
  it("an array whose tasks all finish notifies once when it starts and once when it ends, not per task", async () => {
    const a = await submitArray(5);
    await start(a.tasks.slice(0, 3), minutes(0));
    await start(a.tasks.slice(3), minutes(1));
    for (const [i, id] of a.tasks.entries()) await end(id, FINISHED, minutes(10 + i));

    const n = await noticesOf(a.tasks);
    expect(n.map((x) => [x.jobId, x.kind, x.title])).toEqual([
      [a.id, "STARTED", `Array pretrain-7b (#${a.id}) started: 5 tasks`],
      [a.id, "FINISHED", `Array pretrain-7b (#${a.id}) ended: all 5 tasks finished`],
    ]);
    expect(n[0]!.sentence).toBe(
      "Its first task started on h100. Its tasks are not notified one by one: one notification comes when the last of them ends, saying how each ended, and a task that fails is notified at once, at most one every 30 minutes.",
    );
    expect(n[1]!.sentence).toBe(
      "The last of its 5 tasks ended on h100. Each task has its own page, with its exit code and its log.",
    );
    expect(n[1]!.details).toMatchObject({
      array: { id: a.id, tasks: 5 },
      counts: { finished: 5, failed: 0, killed: 0, preempted: 0, lost: 0, cancelled: 0 },
    });
    expect(n[1]!.createdAt).toEqual(minutes(14));
    expect(n.map((x) => [x.userId, x.webhookState])).toEqual([
      [w.users.ada.id, "PENDING"],
      [w.users.ada.id, "PENDING"],
    ]);
  });

  it("a task's failure is notified at once but at most once per array every 30 minutes, and the summary counts every end", async () => {
    const a = await submitArray(8);
    await start(a.tasks, minutes(0));
    // A preemption warning and a retry of a task: no notification of their own (the retry falls in the
    // 30 minutes after the first failure).
    await w.db.prisma.jobEvent.create({
      data: { jobId: a.tasks[7]!, at: minutes(1), kind: "PREEMPTED", sentence: "Preempted.", actorKind: "SCHEDULER" },
    });
    await end(a.tasks[1]!, FAILED, minutes(2));
    await end(a.tasks[0]!, RETRIED, minutes(3));
    await start([a.tasks[0]!], minutes(4));
    await end(a.tasks[2]!, FAILED, minutes(5));
    await end(a.tasks[3]!, FAILED, minutes(32));
    await end(a.tasks[4]!, FAILED, minutes(33));
    await end(a.tasks[5]!, KILLED, minutes(34));
    await end(a.tasks[6]!, LOST, minutes(35));
    await end(a.tasks[0]!, FINISHED, minutes(36));
    await end(a.tasks[7]!, FINISHED, minutes(37));

    const n = await noticesOf(a.tasks);
    expect(n.map((x) => [x.jobId, x.kind, x.title])).toEqual([
      [a.id, "STARTED", `Array pretrain-7b (#${a.id}) started: 8 tasks`],
      [a.tasks[1], "FAILED", `Task 1 of array pretrain-7b (#${a.id}) failed`],
      [a.tasks[3], "FAILED", `Task 3 of array pretrain-7b (#${a.id}) failed`],
      [
        a.id,
        "FAILED",
        `Array pretrain-7b (#${a.id}) ended: 2 finished, 4 failed (tasks 1, 2, 3 and 1 more), 1 killed at the maximum runtime (task 5), 1 lost with a node (task 6)`,
      ],
    ]);
    expect(n[1]!.sentence).toBe(
      "FAILED (test). Other tasks of this array that fail in the next 30 minutes are not notified one by one: the notification when the array ends counts them.",
    );
    expect(n[1]!.details).toMatchObject({ event: "FAILED", array: { id: a.id, index: 1 }, exitCode: 1 });
    expect(n[3]!.details).toMatchObject({
      counts: { finished: 2, failed: 4, killed: 1, preempted: 0, lost: 1, cancelled: 0 },
      tasks: { failed: [1, 2, 3, 4], killed: [5], preempted: [], lost: [6] },
    });
  });

  it("two last tasks ending at once in two transactions write exactly one summary", async () => {
    const a = await submitArray(2);
    await start(a.tasks, minutes(0));
    let commitFirst!: () => void;
    let firstRecorded!: () => void;
    const recorded = new Promise<void>((ok) => (firstRecorded = ok));
    const first = w.db.prisma.$transaction(
      async (tx) => {
        await endIn(tx, a.tasks[0]!, FINISHED, minutes(5));
        firstRecorded();
        await new Promise<void>((ok) => (commitFirst = ok));
      },
      { timeout: 20_000 },
    );
    await recorded;
    // The second records its end while the first has not committed: it waits for the first's lock on the
    // array (and, without one, would see task 0 still running, as the first sees task 1).
    const second = w.db.prisma.$transaction((tx) => endIn(tx, a.tasks[1]!, FINISHED, minutes(5)), { timeout: 20_000 });
    await new Promise((ok) => setTimeout(ok, 500));
    commitFirst();
    await Promise.all([first, second]);

    const summaries = (await noticesOf(a.tasks)).filter((x) => x.kind !== "STARTED");
    expect(summaries.map((x) => x.title)).toEqual([`Array pretrain-7b (#${a.id}) ended: all 2 tasks finished`]);
  });

  it("a job that is not a task of an array notifies its start, warning and end as before, even in one statement with tasks", async () => {
    const plain = (await callRest(w, "POST", "/jobs", { token, body: goodJob })).body.job.id as number;
    const a = await submitArray(3);
    await start([plain, ...a.tasks], minutes(0));
    await w.db.prisma.jobEvent.create({
      data: {
        jobId: plain,
        at: minutes(1),
        kind: "PREEMPTED",
        sentence: "Preempted for job 9.",
        details: { gracePeriod: 120 },
        actorKind: "SCHEDULER",
      },
    });
    await end(plain, FAILED, minutes(2));

    expect((await noticesOf([plain])).map((x) => [x.kind, x.title, x.sentence])).toEqual([
      ["STARTED", `Job #${plain} (pretrain-7b) started on h100`, "Started."],
      [
        "PREEMPTION_WARNING",
        `Job #${plain} (pretrain-7b) is being preempted: it has 120 s to save its state`,
        "Preempted for job 9.",
      ],
      ["FAILED", `Job #${plain} (pretrain-7b) failed`, "FAILED (test)."],
    ]);
    expect((await noticesOf(a.tasks)).map((x) => x.title)).toEqual([`Array pretrain-7b (#${a.id}) started: 3 tasks`]);
  });

  it("a cancelled array says once how it ended, and one cancelled before it started says nothing", async () => {
    const a = await submitArray(10);
    await start(a.tasks.slice(0, 2), minutes(0));
    await end(a.tasks[0]!, FINISHED, minutes(1));
    expect(await cancelArray(w.db.prisma, w.users.ada, a.id)).toEqual({ arrayId: a.id, cancelled: 8, stopping: 1 });
    // Task 1 was asked to stop; its run ends cancelled when its agent reports it.
    await end(a.tasks[1]!, CANCELLED, minutes(2));
    const n = await noticesOf(a.tasks);
    expect(n.map((x) => [x.jobId, x.kind, x.title])).toEqual([
      [a.id, "STARTED", `Array pretrain-7b (#${a.id}) started: 10 tasks`],
      [a.id, "CANCELLED", `Array pretrain-7b (#${a.id}) ended: 1 finished, 9 cancelled`],
    ]);
    expect(n[1]!.details).toMatchObject({ counts: { finished: 1, cancelled: 9 } });

    const never = await submitArray(4);
    expect(await cancelArray(w.db.prisma, w.users.ada, never.id)).toEqual({ arrayId: never.id, cancelled: 4, stopping: 0 });
    expect(await noticesOf(never.tasks)).toEqual([]);
  });
});
