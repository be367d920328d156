import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer } from "node:http";
import { submitJobInput } from "@tranche/contracts";
import { createApiToken, deliverWebhooks, setWebhook, submitJobs } from "@tranche/domain";
import { loadClusterSnapshot } from "@tranche/domain/runtime";
import { callRest, goodJob, makeWorld, type World } from "./fixtures";

let w: World;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  w = await makeWorld("api_job_rules");
  for (const who of ["ada", "maya", "victor", "omar", "other"] as const)
    tokens[who] = (await createApiToken(w.db.prisma, w.users[who], { name: "test" })).token;
});
afterAll(async () => {
  await w?.db.drop();
});

const call = (who: string, method: string, path: string, body?: unknown) =>
  callRest(w, method, path, { token: tokens[who]!, body });
const otherJob = { ...goodJob, budget: "lab/vision/video", resumable: false };

describe("arrays, dependencies and retries at submit (REST)", () => {
  it("stores an array as one job per task, each with its index, and shows it as task N of the spec", async () => {
    const r = await call("ada", "POST", "/jobs", { ...goodJob, gpus: 1, array: "0-99%10" });
    expect(r.status).toBe(201);
    const id = r.body.job.id as number;
    expect(r.body.job.array).toEqual({ id, index: 0, spec: "0-99%10" });
    expect(r.body.job.env.TRANCHE_ARRAY_INDEX).toBe("0");
    const tasks = await w.db.prisma.job.findMany({ where: { arrayJobId: id }, orderBy: { arrayIndex: "asc" } });
    expect(tasks).toHaveLength(100);
    expect(tasks.every((t) => t.arrayMaxRunning === 10)).toBe(true);
    const seventh = await call("ada", "GET", `/jobs/${tasks[7]!.id}`);
    expect(seventh.body.job.array).toEqual({ id, index: 7, spec: "0-99%10" });
    expect(seventh.body.job.env.TRANCHE_ARRAY_INDEX).toBe("7");
    const listed = await call("ada", "GET", "/jobs?limit=5");
    expect(listed.body.jobs[0].array.id).toBe(id);
    // A task's own id, or a plain job's, is not an array's: the answer names the id to use, and cancels nothing.
    const byTask = await call("ada", "POST", `/arrays/${tasks[7]!.id}/cancel`);
    expect([byTask.status, byTask.body.error.message]).toEqual([
      404,
      `Job ${tasks[7]!.id} is task 7 of array ${id}; the array goes by its first task's id, ${id}`,
    ]);
    const plain = (await call("ada", "POST", "/jobs", goodJob)).body.job.id as number;
    expect((await call("ada", "POST", `/arrays/${plain}/cancel`)).body.error.message).toBe(`Job ${plain} is not a job array`);
    expect((await call("ada", "POST", "/arrays/99999/cancel")).body.error.message).toBe("There is no job array 99999");
    expect(await w.db.prisma.job.count({ where: { arrayJobId: id, state: "CANCELLED" } })).toBe(0);
    const cancelled = await call("ada", "POST", `/arrays/${id}/cancel`);
    expect(cancelled.body).toEqual({ arrayId: id, cancelled: 100, stopping: 0 });
  });

  it("holds and releases a whole array, as Slurm's scontrol hold of its id: its waiting tasks, in one go", async () => {
    const id = (await call("ada", "POST", "/jobs", { ...goodJob, gpus: 1, array: "0-4" })).body.job.id as number;
    const tasks = await w.db.prisma.job.findMany({ where: { arrayJobId: id }, orderBy: { arrayIndex: "asc" } });
    await w.db.prisma.job.update({ where: { id: tasks[4]!.id }, data: { state: "RUNNING" } });
    const states = async () =>
      (await w.db.prisma.job.findMany({ where: { arrayJobId: id }, orderBy: { arrayIndex: "asc" } })).map((t) => t.state);
    const events = () => w.db.prisma.jobEvent.count({ where: { job: { arrayJobId: id }, kind: { in: ["HELD", "RELEASED"] } } });

    // Someone else's array, a task's id or no array: refused, nothing held.
    const theirs = await call("other", "POST", `/arrays/${id}/hold`);
    expect([theirs.status, theirs.body.error.message]).toEqual([
      403,
      `Array ${id} is not yours: only its owner, a manager of its budget, an operator or an admin may hold it`,
    ]);
    const byTask = await call("ada", "POST", `/arrays/${tasks[2]!.id}/hold`);
    expect([byTask.status, byTask.body.error.message]).toEqual([
      404,
      `Job ${tasks[2]!.id} is task 2 of array ${id}; the array goes by its first task's id, ${id}`,
    ]);
    expect(await states()).toEqual(["PENDING", "PENDING", "PENDING", "PENDING", "RUNNING"]);
    expect(await events()).toBe(0);

    const held = await call("ada", "POST", `/arrays/${id}/hold`);
    expect([held.status, held.body]).toEqual([200, { arrayId: id, held: 4, running: 1 }]);
    expect(await states()).toEqual(["HELD", "HELD", "HELD", "HELD", "RUNNING"]);
    const task = await w.db.prisma.job.findUniqueOrThrow({ where: { id: tasks[3]!.id } });
    expect([task.heldBy, task.reasonCode, task.reasonSentence]).toEqual([
      w.users.ada.id,
      "HELD",
      `Held with its array ${id} by ${w.users.ada.name}: the scheduler skips it until it is released.`,
    ]);
    expect(await events()).toBe(4);
    const again = await call("ada", "POST", `/arrays/${id}/hold`);
    expect([again.status, again.body.error.message]).toEqual([
      409,
      `Array ${id} has no waiting task to hold (4 held, 1 running)`,
    ]);

    // An operator's hold on one task stays: its owner releases the others.
    await w.db.prisma.job.update({ where: { id: tasks[0]!.id }, data: { heldBy: w.users.omar.id } });
    const released = await call("ada", "POST", `/arrays/${id}/release`);
    expect([released.status, released.body]).toEqual([200, { arrayId: id, released: 3, heldByOperator: 1 }]);
    expect(await states()).toEqual(["HELD", "PENDING", "PENDING", "PENDING", "RUNNING"]);
    const notHers = await call("ada", "POST", `/arrays/${id}/release`);
    expect([notHers.status, notHers.body.error.message]).toEqual([
      403,
      `The held tasks of array ${id} were held by someone else (an operator, an admin or a manager of its budget): only they, an operator or an admin may release them`,
    ]);
    expect((await call("omar", "POST", `/arrays/${id}/release`)).body).toEqual({ arrayId: id, released: 1, heldByOperator: 0 });
    expect(await states()).toEqual(["PENDING", "PENDING", "PENDING", "PENDING", "RUNNING"]);
    const none = await call("ada", "POST", `/arrays/${id}/release`);
    expect([none.status, none.body.error.message]).toEqual([
      409,
      `Array ${id} has no held task to release (1 running, 4 waiting)`,
    ]);
    expect(await events()).toBe(8);
  });

  it("takes lists like 1,3,5-7 and dependencies and retries, and shows them on the job", async () => {
    const parent = (await call("ada", "POST", "/jobs", goodJob)).body.job.id as number;
    const r = await call("ada", "POST", "/jobs", { ...goodJob, array: "1,3,5-7", after: [`${parent}:any`], retries: 3 });
    expect(r.status).toBe(201);
    expect(r.body.job.after).toEqual([{ jobId: parent, condition: "ANY" }]);
    expect(r.body.job.retries).toEqual({ max: 3, used: 0 });
    const tasks = await w.db.prisma.job.findMany({ where: { arrayJobId: r.body.job.id }, include: { dependencies: true } });
    expect(tasks.map((t) => t.arrayIndex).sort((a, b) => a! - b!)).toEqual([1, 3, 5, 6, 7]);
    expect(tasks.every((t) => t.dependencies.length === 1 && t.maxRetries === 3)).toBe(true);
  });

  it("hands the scheduler where each dependency stands: a job by its own state, an array by all its tasks", async () => {
    const single = (await call("ada", "POST", "/jobs", goodJob)).body.job.id as number;
    const array = (await call("ada", "POST", "/jobs", { ...goodJob, array: "0-2" })).body.job.id as number;
    const child = (await call("ada", "POST", "/jobs", { ...goodJob, after: [`${single}:ok`, `${array}:any`] })).body.job
      .id as number;
    const tasks = await w.db.prisma.job.findMany({ where: { arrayJobId: array }, orderBy: { arrayIndex: "asc" } });
    expect(tasks[0]!.id).toBe(array); // the array's id is its first task's
    const stand = async () => {
      const cluster = await w.db.prisma.cluster.findUniqueOrThrow({ where: { name: "h100" } });
      const snap = await loadClusterSnapshot(w.db.prisma, cluster.id, Math.floor(Date.now() / 1000));
      return snap.pending.find((j) => j.id === String(child))!.dependencies;
    };
    expect(await stand()).toEqual([
      { jobId: String(single), condition: "ok", state: "WAITING" },
      { jobId: String(array), condition: "any", state: "WAITING" },
    ]);
    const end = (ids: number[], state: "COMPLETED" | "FAILED") =>
      w.db.prisma.job.updateMany({ where: { id: { in: ids } }, data: { state } });
    await end([single, tasks[0]!.id, tasks[2]!.id], "COMPLETED");
    // One task of the array is still to run: the array waits.
    expect((await stand())!.map((d) => d.state)).toEqual(["COMPLETED", "WAITING"]);
    await end([tasks[1]!.id], "FAILED");
    expect((await stand())!.map((d) => d.state)).toEqual(["COMPLETED", "FAILED"]);
    await end([tasks[1]!.id], "COMPLETED");
    expect((await stand())!.map((d) => d.state)).toEqual(["COMPLETED", "COMPLETED"]);
  });

  const refused = async (who: string, body: unknown, field: string, message: RegExp) => {
    const before = await w.counts();
    const deps = await w.db.prisma.jobDependency.count();
    const r = await call(who, "POST", "/jobs", body);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("BAD_INPUT");
    expect(r.body.error.message).toMatch(message);
    expect(r.body.error.issues?.[0]?.path ?? field).toBe(field);
    expect(await w.counts()).toEqual(before);
    expect(await w.db.prisma.jobDependency.count()).toBe(deps);
  };

  it("refuses an array of more than 10,000 tasks, naming the limit, and stores nothing", async () => {
    await refused("ada", { ...goodJob, array: "0-10000" }, "array", /10,001 tasks; at most 10,000 per array/);
    await refused("ada", { ...goodJob, array: "0-999999%5" }, "array", /more than 10,000 tasks/);
    await refused("ada", { ...goodJob, array: "7-3" }, "array", /runs backwards/);
    await refused("ada", { ...goodJob, array: "0-9%0" }, "array", /at least 1/);
  });

  it("refuses negative or too many retries", async () => {
    await refused("ada", { ...goodJob, retries: -1 }, "retries", /retries must be between 0 and 10/);
    await refused("ada", { ...goodJob, retries: 11 }, "retries", /retries must be between 0 and 10/);
  });

  it("refuses a dependency on another user's job one may not see, or on no job, like each other", async () => {
    const hidden = (await call("other", "POST", "/jobs", otherJob)).body.job.id as number;
    await refused(
      "ada",
      { ...goodJob, after: [`${hidden}:ok`] },
      "after",
      new RegExp(`job ${hidden} does not exist or is not one you may wait for`),
    );
    await refused("ada", { ...goodJob, after: ["99999"] }, "after", /job 99999 does not exist or is not one you may wait for/);
    await refused("ada", { ...goodJob, after: ["81:maybe"] }, "after.0", /must be JOB, JOB:ok or JOB:any/);
    // Victor manages lab/vision: he sees the job, so he may depend on it.
    const seen = await call("victor", "POST", "/jobs", { ...otherJob, after: [String(hidden)] });
    expect(seen.status).toBe(403); // ...but he is not a member of the budget it charges.
    expect(seen.body.error.message).toMatch(/not one of its members/);
  });

  it("refuses an :ok dependency on a job that already ended without success, naming it, and takes :any", async () => {
    const failed = (await call("ada", "POST", "/jobs", goodJob)).body.job.id as number;
    await w.db.prisma.job.update({ where: { id: failed }, data: { state: "FAILED" } });
    const because = (which: string, id: number, state: string) =>
      `after: ${which} already ended (${state}), so a job that waits for it to succeed could never start: leave it out, or write ${id}:any to start once it has ended`;
    for (const after of [[String(failed)], [`${failed}:ok`], [`afterok:${failed}`]])
      await refused(
        "ada",
        { ...goodJob, after },
        "after",
        new RegExp(`^${because(`job ${failed}`, failed, "failed").replace(/[()]/g, "\\$&")}$`),
      );
    // An array whose tasks have all ended, one of them cancelled: the task is named.
    const array = (await call("ada", "POST", "/jobs", { ...goodJob, gpus: 1, array: "0-2" })).body.job.id as number;
    const tasks = await w.db.prisma.job.findMany({ where: { arrayJobId: array }, orderBy: { arrayIndex: "asc" } });
    await w.db.prisma.job.updateMany({ where: { arrayJobId: array }, data: { state: "COMPLETED" } });
    await w.db.prisma.job.update({ where: { id: tasks[1]!.id }, data: { state: "CANCELLED" } });
    await refused("ada", { ...goodJob, after: [String(array)] }, "after", /task \d+ of array \d+ already ended \(cancelled\)/);
    expect((await call("ada", "POST", "/jobs", { ...goodJob, after: [String(array)] })).body.error.message).toBe(
      because(`task ${tasks[1]!.id} of array ${array}`, array, "cancelled"),
    );
    // :any waits only for it to end, so it is taken; a succeeded job is a met :ok dependency.
    expect((await call("ada", "POST", "/jobs", { ...goodJob, after: [`${failed}:any`] })).status).toBe(201);
    await w.db.prisma.job.update({ where: { id: tasks[1]!.id }, data: { state: "COMPLETED" } });
    expect((await call("ada", "POST", "/jobs", { ...goodJob, after: [String(array)] })).status).toBe(201);
    // tranche depend refuses it the same way, and changes nothing.
    const waiting = (await call("ada", "POST", "/jobs", goodJob)).body.job.id as number;
    const put = await call("ada", "PUT", `/jobs/${waiting}/dependencies`, { after: [String(failed)] });
    expect([put.status, put.body.error.message]).toEqual([400, because(`job ${failed}`, failed, "failed")]);
    expect(await w.db.prisma.jobDependency.count({ where: { jobId: waiting } })).toBe(0);
  });

  it("reads a manager's subtree once for a whole batch's dependencies, not once per dependency", async () => {
    const video = await w.db.prisma.budgetTreeNode.findUniqueOrThrow({ where: { path: "lab/vision/video" } });
    await w.db.prisma.budgetMember.create({ data: { budgetId: video.id, userId: w.users.victor.id } });
    const theirs: number[] = [];
    for (let i = 0; i < 10; i++) theirs.push((await call("other", "POST", "/jobs", otherJob)).body.job.id as number);
    // Every raw statement the submission sends, counted on the way to the database.
    let statements = 0;
    const counted = new Proxy(w.db.prisma, {
      get(target, key) {
        const v = Reflect.get(target, key) as unknown;
        if (key === "$queryRaw") statements++;
        return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const jobs = Array.from({ length: 100 }, () => submitJobInput.parse({ ...otherJob, after: theirs.map(String) }));
    const made = await submitJobs(counted, w.users.victor, jobs);
    expect(made).toHaveLength(100);
    expect(statements).toBeLessThan(10);
  });

  it("refuses a dependency update that would make a cycle, and changes nothing", async () => {
    const a = (await call("ada", "POST", "/jobs", goodJob)).body.job.id as number;
    const b = (await call("ada", "POST", "/jobs", { ...goodJob, after: [String(a)] })).body.job.id as number;
    const c = (await call("ada", "POST", "/jobs", { ...goodJob, after: [String(b)] })).body.job.id as number;
    const events = await w.db.prisma.jobEvent.count();
    for (const parent of [c, b, a]) {
      const r = await call("ada", "PUT", `/jobs/${a}/dependencies`, { after: [`${parent}:ok`] });
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(/cycle of dependencies/);
    }
    expect(await w.db.prisma.jobDependency.count({ where: { jobId: a } })).toBe(0);
    expect(await w.db.prisma.jobEvent.count()).toBe(events);
    // A change that closes no cycle is taken.
    const ok = await call("ada", "PUT", `/jobs/${c}/dependencies`, { after: [`${a}:any`] });
    expect(ok.body.after).toEqual([{ parentId: a, condition: "ANY" }]);
    const other = await call("other", "PUT", `/jobs/${c}/dependencies`, { after: [] });
    expect(other.status).toBe(403);
  });
});

describe("per-user GPU limits of a budget", () => {
  it("are set by the budget's managers, refused to others and on groups, and reach the scheduler's snapshot", async () => {
    const body = { budget: "lab/language/pretraining", maxGpusPerUser: 16 };
    expect((await call("ada", "PUT", "/budgets/user-limit", body)).status).toBe(403);
    expect((await call("victor", "PUT", "/budgets/user-limit", body)).status).toBe(403);
    const group = await call("maya", "PUT", "/budgets/user-limit", { ...body, budget: "lab/language" });
    expect(group.status).toBe(400);
    expect(group.body.error.message).toMatch(/group of budgets/);
    expect((await call("maya", "PUT", "/budgets/user-limit", { ...body, maxGpusPerUser: 0 })).status).toBe(400);
    const ok = await call("maya", "PUT", "/budgets/user-limit", body);
    expect(ok.body).toEqual(body);
    const cluster = await w.db.prisma.cluster.findUniqueOrThrow({ where: { name: "h100" } });
    const b = await w.db.prisma.budgetTreeNode.findUniqueOrThrow({ where: { path: body.budget } });
    const snap = await loadClusterSnapshot(w.db.prisma, cluster.id, Math.floor(Date.now() / 1000));
    expect(snap.tree.find((n) => n.id === b.id)!.maxGpusPerUser).toBe(16);
    const audit = await w.db.prisma.auditLog.findFirst({ where: { action: "budget.userLimit" } });
    expect(audit?.details).toMatchObject({ from: null, to: 16 });
    // The same limit again answers as before and writes no second audit row.
    expect((await call("maya", "PUT", "/budgets/user-limit", body)).body).toEqual(body);
    expect(await w.db.prisma.auditLog.count({ where: { action: "budget.userLimit" } })).toBe(1);
  });
});

describe("notifications", () => {
  it("flags a squatting job to its owner and the managers of its budget, in their inboxes", async () => {
    const id = (await call("ada", "POST", "/jobs", goodJob)).body.job.id as number;
    await w.db.prisma.job.update({ where: { id }, data: { squattingSince: new Date() } });
    const rows = await w.db.prisma.notification.findMany({ where: { jobId: id, kind: "SQUATTING" } });
    // Its owner, Maya (manages lab/language) and whoever manages lab; not Victor (lab/vision).
    const to = rows.map((r) => r.userId);
    expect(to).toEqual(expect.arrayContaining([w.users.ada.id, w.users.maya.id]));
    expect(to).not.toContain(w.users.victor.id);
    const labManagers = await w.db.prisma.budgetManager.findMany({ where: { treeNode: { path: "lab" } } });
    expect(to.length).toBe(new Set([w.users.ada.id, w.users.maya.id, ...labManagers.map((m) => m.userId)]).size);
    expect(rows[0]!.sentence).toMatch(/under 5% busy for 30 minutes/);
    // Setting it again while flagged does not notify twice.
    await w.db.prisma.job.update({ where: { id }, data: { squattingSince: new Date() } });
    expect(await w.db.prisma.notification.count({ where: { jobId: id } })).toBe(rows.length);
  });

  it("lists the caller's own notifications with an unread count and marks them read", async () => {
    const mine = await call("maya", "GET", "/notifications");
    expect(mine.body.unread).toBeGreaterThan(0);
    expect(mine.body.notifications.every((n: { read: boolean }) => !n.read)).toBe(true);
    const adas = await call("ada", "GET", "/notifications");
    // Maya cannot mark Ada's notifications read.
    await call("maya", "POST", "/notifications/read", { ids: adas.body.notifications.map((n: { id: string }) => n.id) });
    expect((await call("ada", "GET", "/notifications")).body.unread).toBe(adas.body.unread);
    const marked = await call("maya", "POST", "/notifications/read", {});
    expect(marked.body.marked).toBe(mine.body.unread);
    expect((await call("maya", "GET", "/notifications?unread=true")).body.notifications).toEqual([]);
  });

  it("takes an http(s) webhook and refuses anything else", async () => {
    const bad = await call("ada", "PUT", "/me/webhook", { url: "ftp://example.com/x" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/http:\/\/ or https:\/\//);
    expect((await call("ada", "PUT", "/me/webhook", { url: "https://hooks.example/t" })).body.url).toBe(
      "https://hooks.example/t",
    );
    expect((await call("ada", "GET", "/me/webhook")).body.url).toBe("https://hooks.example/t");
    expect((await call("ada", "PUT", "/me/webhook", { url: null })).body.url).toBeNull();
  });

  it("refuses a webhook on this host or a private network unless the lab allows private targets", async () => {
    for (const url of [
      "http://127.0.0.1:54329/",
      "http://localhost:3000/api/v1/jobs",
      "http://169.254.169.254/latest/meta-data",
      "http://[::1]/x",
    ]) {
      const r = await call("ada", "PUT", "/me/webhook", { url });
      expect(r.status, url).toBe(400);
      expect(r.body.error.message, url).toMatch(/private or local address|points at this host/);
    }
    expect((await call("ada", "GET", "/me/webhook")).body.url).toBeNull();
  });

  it("warns the owner when a preemption is applied, with the grace period", async () => {
    const id = (await call("ada", "POST", "/jobs", goodJob)).body.job.id as number;
    await w.db.prisma.jobEvent.create({
      data: {
        jobId: id,
        kind: "PREEMPTED",
        reasonCode: "FAIR_SHARE",
        sentence: "Preempted for job 9. SIGTERM now, SIGKILL after 120s; requeued with its original submit time.",
        details: { gracePeriod: 120, graceUntil: 0 },
        actorKind: "SCHEDULER",
      },
    });
    const n = await w.db.prisma.notification.findFirstOrThrow({ where: { jobId: id, kind: "PREEMPTION_WARNING" } });
    expect(n.userId).toBe(w.users.ada.id);
    expect(n.title).toBe(`Job #${id} (pretrain-7b) is being preempted: it has 120 s to save its state`);
    expect(n.sentence).toContain("SIGKILL after 120s");
  });

  it("posts to a webhook with a bounded timeout, and logs and gives up on one that fails", async () => {
    let calls = 0;
    const slow = createServer((req, res) => {
      calls++;
      if (req.url === "/fail") res.writeHead(500).end();
      // "/slow" never answers.
    });
    await new Promise<void>((ok) => slow.listen(0, "127.0.0.1", ok));
    const port = (slow.address() as { port: number }).port;
    // The receivers here listen on 127.0.0.1: a lab whose hook receivers are internal says so.
    process.env.TRANCHE_WEBHOOK_ALLOW_PRIVATE = "1";
    try {
      await w.db.prisma.notification.updateMany({ data: { webhookState: null } });
      await setWebhook(w.db.prisma, w.users.ada, `http://127.0.0.1:${port}/fail`);
      await setWebhook(w.db.prisma, w.users.maya, `http://127.0.0.1:${port}/slow`);
      const id = (await call("ada", "POST", "/jobs", goodJob)).body.job.id as number;
      await w.db.prisma.job.update({ where: { id }, data: { squattingSince: new Date() } });
      const waiting = await w.db.prisma.notification.count({ where: { jobId: id, webhookState: "PENDING" } });
      expect(waiting).toBe(2); // Ada's and Maya's (the lab's managers have no webhook)
      const warnings: string[] = [];
      const started = Date.now();
      for (let round = 0; round < 3; round++)
        await deliverWebhooks(w.db.prisma, { warn: (m) => warnings.push(m) }, { timeoutMs: 300 });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(await w.db.prisma.notification.count({ where: { jobId: id, webhookState: "FAILED" } })).toBe(2);
      expect(calls).toBe(6);
      expect(warnings.filter((m) => /HTTP 500/.test(m))).toHaveLength(3);
      expect(warnings.filter((m) => /no answer within 300 ms/.test(m))).toHaveLength(3);
      expect(warnings.filter((m) => /giving up/.test(m))).toHaveLength(2);
    } finally {
      delete process.env.TRANCHE_WEBHOOK_ALLOW_PRIVATE;
      slow.closeAllConnections();
      await new Promise((ok) => slow.close(ok));
    }
  });
});
