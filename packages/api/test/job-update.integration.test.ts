import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@tranche/domain";
import { callRest, goodJob, makeWorld, runningSession, type World } from "./fixtures";

// A waiting job changed in place (PATCH /api/v1/jobs/{id}, tRPC job.update): who may, what is checked
// (submit's own rules), what a job that does not wait answers, arrays, and what the timeline says.

let w: World;
const tokens: Record<string, string> = {};
const who = ["ada", "maya", "victor", "omar", "admin", "other"] as const;

beforeAll(async () => {
  w = await makeWorld("api_job_update");
  for (const u of who) tokens[u] = (await createApiToken(w.db.prisma, w.users[u], { name: "test" })).token;
});
afterAll(async () => {
  await w?.db.drop();
});

const patch = (u: (typeof who)[number], id: number, body: unknown) =>
  callRest(w, "PATCH", `/jobs/${id}`, { token: tokens[u]!, body });
const adaJob = async (over: object = {}) =>
  (await w.caller("ada").job.submit({ ...goodJob, minRuntime: "30m", maxRuntime: "1h", ...over })).id;
const row = (id: number) => w.db.prisma.job.findUniqueOrThrow({ where: { id } });
const updates = (id: number) => w.db.prisma.jobEvent.count({ where: { jobId: id, kind: "UPDATED" } });

describe("who may change a waiting job", () => {
  it("its owner, managers of its budget, operators and admins, as for hold; managers outside it and other users may not", async () => {
    const id = await adaJob();
    for (const u of ["victor", "other"] as const) {
      const r = await patch(u, id, { gpus: 4 });
      expect([u, r.status, r.body.error.message]).toEqual([
        u,
        403,
        `Job ${id} is not yours: only its owner, a manager of its budget, an operator or an admin may change it`,
      ]);
      await expect(w.caller(u).job.update({ id, gpus: 4 })).rejects.toMatchObject({ code: "FORBIDDEN" });
    }
    expect([(await row(id)).gpus, (await row(id)).revision, await updates(id)]).toEqual([8, 0, 0]);
    // Maya manages lab/language, above the job's budget.
    for (const [u, gpus] of [
      ["ada", 4],
      ["maya", 2],
      ["omar", 1],
      ["admin", 2],
    ] as const) {
      const r = await patch(u, id, { gpus });
      expect([u, r.status, r.body.job?.gpus]).toEqual([u, 200, gpus]);
    }
    expect((await w.caller("ada").job.update({ id, gpus: 8 })).job.gpus).toBe(8);
    expect((await row(id)).revision).toBe(5);
    await expect(w.caller(null).job.update({ id, gpus: 4 })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    expect((await callRest(w, "PATCH", `/jobs/${id}`, { body: { gpus: 4 } })).status).toBe(401);
    expect((await patch("ada", 999_999, { gpus: 4 })).body.error.message).toBe("There is no job 999999");
  });
});

describe("every value is checked as at submit, and one bad value changes nothing", () => {
  it("refuses a GPU shape, runtimes or a budget that submit would refuse, naming the field", async () => {
    const id = await adaJob();
    const before = await row(id);
    const cases: [object, number, string, string | RegExp][] = [
      [{ gpus: 12 }, 400, "gpus", "12 GPUs span several nodes but are not a multiple of the node size, 8 (use 8 or 16)"],
      [{ gpus: 4, minRuntime: "9h" }, 400, "minRuntime", /^Minimum runtime 9 h is above the cluster's limit of 8 h/],
      [{ maxRuntime: "10m" }, 400, "maxRuntime", "Maximum runtime 10 min is shorter than the minimum runtime, 30 min"],
      [{ gpus: 0 }, 400, "gpus", "The number of GPUs must be at least 1"],
      [{ priority: 5000 }, 400, "priority", "Priority must be between -1000 and 1000"],
      [{ name: "" }, 400, "name", /name/],
      [{ budget: "lab/nope" }, 400, "budget", "Unknown budget 'lab/nope'"],
      [
        { budget: "lab/language" },
        400,
        "budget",
        "'lab/language' is not a budget but a group of budgets; charge one of its leaves",
      ],
      [
        { gpus: 4, budget: "lab/vision/video" },
        403,
        "budget",
        `Job ${id} may not be charged to 'lab/vision/video': its owner, Ada Researcher, is not one of its members`,
      ],
      [{}, 400, "", /^nothing to change: give at least one of gpus, minRuntime, maxRuntime, priority, name, budget/],
      [{ gpus: 4, command: "x" }, 400, "", /unknown field 'command' in a job update/],
    ];
    for (const [body, status, field, message] of cases) {
      const r = await patch("ada", id, body);
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), status]);
      if (message instanceof RegExp) expect(r.body.error.message).toMatch(message);
      else expect(r.body.error.message).toBe(message);
      if (field) expect(r.body.error.field ?? r.body.error.issues?.[0]?.path).toBe(field);
    }
    // The owner's membership, not the caller's: an admin may not charge Ada's job to a budget she is not in.
    expect((await patch("admin", id, { budget: "lab/vision/video" })).status).toBe(403);
    const after = await row(id);
    expect({ ...after, updatedAt: null }).toEqual({ ...before, updatedAt: null });
    expect(await updates(id)).toBe(0);
  });

  it("moves the job into the debug lane, or out of it, as the new values classify it", async () => {
    const id = await adaJob({ gpus: 1, minRuntime: "5m", maxRuntime: "1h" });
    expect((await row(id)).gpus).toBe(1);
    const r = await patch("ada", id, { maxRuntime: "10m" });
    expect(r.body.job.lane).toBe("DEBUG");
    const back = await patch("ada", id, { maxRuntime: null });
    expect([back.body.job.lane, back.body.job.maxRuntime]).toEqual(["ALLOCATED", null]);
  });
});

describe("an update whose values the job already has is done, not refused", () => {
  it("answers 200 with the job as it is and changed: false, and writes nothing", async () => {
    const id = await adaJob();
    const first = await patch("ada", id, { gpus: 4, name: "smaller" });
    expect([first.status, first.body.changed]).toEqual([200, true]);
    const before = await row(id);
    const again = await patch("ada", id, { gpus: 4, name: "smaller" });
    expect([again.status, again.body.changed, again.body.job.id, again.body.job.gpus]).toEqual([200, false, id, 4]);
    const trpc = await w.caller("omar").job.update({ id, gpus: 4 });
    expect([trpc.changed, trpc.job.name]).toEqual([false, "smaller"]);
    expect(await row(id)).toEqual(before);
    expect(await updates(id)).toBe(1);
    // Only a no-op is let through: a bad value is still refused, and so is another user.
    expect((await patch("ada", id, { gpus: 4, priority: 5000 })).status).toBe(400);
    expect((await patch("other", id, { gpus: 4 })).status).toBe(403);
  });

  it("still refuses a job that does not wait, even with its own values", async () => {
    const id = await adaJob();
    await w.db.prisma.job.update({ where: { id }, data: { state: "RUNNING" } });
    const r = await patch("ada", id, { gpus: 8 });
    expect([r.status, r.body.error.message]).toEqual([
      409,
      `Job ${id} is running: only a job that waits to start (pending or held) can be changed; to run it with other values, cancel it and submit it again`,
    ]);
  });

  it("answers an array whose waiting tasks already have the values with changed: false", async () => {
    const id = await adaJob({ gpus: 1, array: "0-2" });
    expect((await patch("ada", id, { array: true, priority: 2 })).body).toEqual({
      arrayId: id,
      updated: 3,
      notWaiting: 0,
      changed: true,
    });
    const again = await patch("ada", id, { array: true, priority: 2 });
    expect([again.status, again.body]).toEqual([200, { arrayId: id, updated: 0, notWaiting: 0, changed: false }]);
    expect(await w.caller("ada").job.updateArray({ id, priority: 2 })).toMatchObject({ changed: false, updated: 0 });
    const tasks = await w.db.prisma.job.findMany({ where: { arrayJobId: id }, select: { revision: true } });
    expect(tasks.map((t) => t.revision)).toEqual([1, 1, 1]);
  });
});

describe("the job keeps its id and its place, and its timeline says what changed and who changed it", () => {
  it("changes a pending job's values and budget, keeps its submit time, drops its stale reason", async () => {
    const id = await adaJob();
    await w.db.prisma.job.update({
      where: { id },
      data: { reasonCode: "NO_CAPACITY", reasonSentence: "Waiting for 8 GPUs on one node.", queuePosition: 3 },
    });
    const before = await row(id);
    const r = await patch("ada", id, {
      gpus: 4,
      maxRuntime: "2h",
      minRuntime: "1h",
      priority: 5,
      name: "smaller",
      budget: "lab/language/evaluation",
    });
    expect(r.status).toBe(200);
    expect(r.body.job).toMatchObject({
      id,
      gpus: 4,
      minRuntime: 3600,
      maxRuntime: 7200,
      priority: 5,
      name: "smaller",
      budget: "lab/language/evaluation",
      state: "PENDING",
      submittedAt: before.submittedAt.toISOString(),
      queuedAt: before.queuedAt.toISOString(),
      reason: null,
    });
    const after = await row(id);
    expect([after.queuePosition, after.revision]).toEqual([null, 1]);
    const events = await callRest(w, "GET", `/jobs/${id}/events`, { token: tokens.ada! });
    const changed = (events.body.events as { kind: string; sentence: string }[]).filter((e) => e.kind === "UPDATED");
    expect(changed.map((e) => e.sentence)).toEqual([
      "Ada Researcher changed GPUs 8 -> 4, min runtime 30 min -> 1 h, max runtime 1 h -> 2 h, priority 0 -> 5, name 'pretrain-7b' -> 'smaller', budget lab/language/pretraining -> lab/language/evaluation.",
    ]);
    await patch("omar", id, { maxRuntime: null });
    const byOmar = await w.db.prisma.jobEvent.findFirstOrThrow({
      where: { jobId: id, kind: "UPDATED" },
      orderBy: { id: "desc" },
    });
    expect(byOmar.sentence).toBe("Omar Operator changed max runtime 2 h -> none.");
  });

  it("changes a held job and keeps it held, with its hold's reason", async () => {
    const id = await adaJob();
    await w.caller("ada").job.hold({ id });
    const r = await patch("ada", id, { gpus: 2 });
    expect([r.status, r.body.job.state, r.body.job.reason?.code]).toEqual([200, "HELD", "HELD"]);
  });

  it("changes a job that was requeued and waits again", async () => {
    const id = await adaJob();
    await w.db.prisma.job.update({ where: { id }, data: { requeueCount: 1, queuedAt: new Date() } });
    expect((await patch("ada", id, { gpus: 2 })).body.job).toMatchObject({ gpus: 2, requeueCount: 1 });
  });
});

describe("a job that does not wait is not changed, and the answer says what can be done instead", () => {
  it("running, stopping and ended jobs; a running session points at tranche extend", async () => {
    const id = await adaJob();
    const refusals: [string, RegExp][] = [
      [
        "RUNNING",
        /is running: only a job that waits to start \(pending or held\) can be changed; to run it with other values, cancel it and submit it again$/,
      ],
      ["STOPPING", /is stopping: only a job that waits to start/],
      [
        "COMPLETED",
        /is completed: only a job that waits to start \(pending or held\) can be changed; it has ended, so submit a new job/,
      ],
    ];
    for (const [state, words] of refusals) {
      await w.db.prisma.job.update({ where: { id }, data: { state: state as "RUNNING" } });
      const r = await patch("ada", id, { gpus: 4 });
      expect([state, r.status]).toEqual([state, 409]);
      expect(r.body.error.message).toMatch(words);
    }
    const session = await runningSession(w, w.users.ada, 1);
    const s = await patch("ada", session.id, { gpus: 2 });
    expect([s.status, s.body.error.message]).toEqual([
      409,
      `Job ${session.id} is running: only a job that waits to start (pending or held) can be changed. To keep this session longer, extend its protection: tranche extend ${session.id} --by 1h`,
    ]);
    expect([(await row(id)).gpus, await updates(id)]).toEqual([8, 0]);
  });
});

describe("array: true changes every task of an array that still waits", () => {
  it("changes the waiting tasks, leaves the running one, and refuses all or nothing", async () => {
    const id = await adaJob({ gpus: 1, array: "0-4" });
    const tasks = await w.db.prisma.job.findMany({ where: { arrayJobId: id }, orderBy: { id: "asc" } });
    await w.db.prisma.job.update({ where: { id: tasks[4]!.id }, data: { state: "RUNNING" } });
    await w.caller("ada").job.hold({ id: tasks[3]!.id });
    const bad = await patch("ada", id, { array: true, gpus: 12 });
    expect([bad.status, bad.body.error.message]).toEqual([
      400,
      `Task 0 (job ${id}): 12 GPUs span several nodes but are not a multiple of the node size, 8 (use 8 or 16)`,
    ]);
    expect(await w.db.prisma.jobEvent.count({ where: { job: { arrayJobId: id }, kind: "UPDATED" } })).toBe(0);
    expect((await patch("other", id, { array: true, gpus: 2 })).status).toBe(403);
    const r = await patch("ada", id, { array: true, gpus: 2 });
    expect([r.status, r.body]).toEqual([200, { arrayId: id, updated: 4, notWaiting: 1, changed: true }]);
    const now = await w.db.prisma.job.findMany({ where: { arrayJobId: id }, orderBy: { id: "asc" } });
    expect(now.map((t) => [t.state, t.gpus])).toEqual([
      ["PENDING", 2],
      ["PENDING", 2],
      ["PENDING", 2],
      ["HELD", 2],
      ["RUNNING", 1],
    ]);
    const e = await w.db.prisma.jobEvent.findFirstOrThrow({ where: { jobId: tasks[1]!.id, kind: "UPDATED" } });
    expect(e.sentence).toBe(`Ada Researcher changed GPUs 1 -> 2 (with its array ${id}).`);
    expect(await w.caller("omar").job.updateArray({ id, priority: 3 })).toEqual({
      arrayId: id,
      updated: 4,
      notWaiting: 1,
      changed: true,
    });
    await expect(w.caller("ada").job.update({ id, array: true, priority: 4 })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("job.update changes one job: ask job.updateArray"),
    });
    await expect(w.caller("other").job.updateArray({ id, priority: 4 })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect((await patch("ada", tasks[1]!.id, { array: true, gpus: 1 })).body.error.message).toBe(
      `Job ${tasks[1]!.id} is task 1 of array ${id}; the array goes by its first task's id, ${id}`,
    );
  });
});
