// POST /api/v1/jobs/actions and tRPC job.act: cancel, hold or release many jobs by ids or by a filter,
// each job by its one-job rule, against a real Postgres.
import type { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { submitJobInput, type JobState } from "@tranche/contracts";
import { createApiToken, submitJob, type Actor } from "@tranche/domain";
import { callRest, goodJob, makeWorld, type World } from "./fixtures";

let w: World;
const tokens: Partial<Record<keyof World["users"], string>> = {};

beforeAll(async () => {
  w = await makeWorld("api_job_actions");
  for (const who of ["ada", "maya", "victor", "omar", "admin", "other"] as const)
    tokens[who] = (await createApiToken(w.db.prisma, w.users[who], { name: "test" })).token;
});
afterAll(async () => {
  await w?.db.drop();
});

const act = (who: keyof World["users"], body: unknown) => callRest(w, "POST", "/jobs/actions", { token: tokens[who]!, body });

/** A job of `who`'s (Ada's budget, or Other's), put in `state` as the worker would have. */
async function jobOf(who: Actor, state: JobState = "PENDING", name = "sweep", cluster = "h100"): Promise<number> {
  const budget = who.id === w.users.other.id ? "lab/vision/video" : "lab/language/pretraining";
  const job = await submitJob(w.db.prisma, who, submitJobInput.parse({ ...goodJob, name, cluster, budget }));
  if (state !== "PENDING")
    await w.db.prisma.job.update({
      where: { id: job.id },
      data: {
        state,
        ...(state === "RUNNING" ? { startedAt: new Date() } : {}),
        ...(state === "CANCELLED" ? { finishedAt: new Date() } : {}),
        ...(state === "HELD" ? { heldBy: who.id } : {}),
      },
    });
  return job.id;
}

const stateOf = async (id: number) => (await w.db.prisma.job.findUniqueOrThrow({ where: { id } })).state;
const statesOf = (ids: number[]) => Promise.all(ids.map(stateOf));

describe("by ids", () => {
  it("cancels the caller's jobs and lists each one it could not cancel with its reason", async () => {
    const ada = w.users.ada;
    const [pending, held, running, ended] = [
      await jobOf(ada),
      await jobOf(ada, "HELD"),
      await jobOf(ada, "RUNNING"),
      await jobOf(ada, "CANCELLED"),
    ];
    const theirs = await jobOf(w.users.other);
    const missing = 2_000_000_000;
    const r = await act("ada", { action: "cancel", ids: [theirs, running, pending, missing, held, ended, pending] });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({
      action: "cancel",
      done: [pending, held, running],
      refused: [
        { id: ended, reason: `Job ${ended} has already finished (cancelled)` },
        { id: theirs, reason: `You have no job ${theirs}` },
        { id: missing, reason: `You have no job ${missing}` },
      ].sort((a, b) => a.id - b.id),
    });
    expect(await statesOf([pending, held, running, theirs])).toEqual(["CANCELLED", "CANCELLED", "STOPPING", "PENDING"]);
    const events = await w.db.prisma.jobEvent.findMany({
      where: { jobId: { in: [pending, running] }, kind: { not: "SUBMITTED" } },
      orderBy: { jobId: "asc" },
    });
    expect(events.map((e) => [e.jobId, e.kind, e.actorId])).toEqual([
      [pending, "CANCELLED", ada.id],
      [running, "CANCEL_REQUESTED", ada.id],
    ]);
  });

  it("says in words, not a timestamp, that a job is already stopping", async () => {
    const stopping = await jobOf(w.users.ada, "STOPPING");
    await w.db.prisma.job.update({ where: { id: stopping }, data: { graceUntil: new Date(Date.now() + 3_600_000) } });
    const r = await act("ada", { action: "cancel", ids: [stopping] });
    expect(r.body.refused).toHaveLength(1);
    expect(r.body.refused[0].reason).toMatch(
      new RegExp(`^Job ${stopping} is already stopping: stopped by force in (1 h|59 min \\d+ s) if it has not exited$`),
    );
  });

  it("holds waiting jobs and releases held ones, refusing those in another state or under an operator's hold", async () => {
    const ada = w.users.ada;
    const [a, b, running] = [await jobOf(ada), await jobOf(ada), await jobOf(ada, "RUNNING")];
    const held = await act("ada", { action: "hold", ids: [a, b, running] });
    expect(held.body).toEqual({
      action: "hold",
      done: [a, b],
      refused: [{ id: running, reason: `Only a pending job can be held; job ${running} is running` }],
    });
    expect(await statesOf([a, b])).toEqual(["HELD", "HELD"]);
    // Omar (an operator) holds b again over Ada's own hold: only an operator or an admin lifts it now.
    await w.db.prisma.job.update({ where: { id: b }, data: { heldBy: w.users.omar.id } });
    const released = await act("ada", { action: "release", ids: [a, b] });
    expect(released.body).toEqual({
      action: "release",
      done: [a],
      refused: [
        {
          id: b,
          reason: `Job ${b} was held by someone else (an operator, an admin or a manager of its budget): only they, an operator or an admin may release it`,
        },
      ],
    });
    expect(await statesOf([a, b])).toEqual(["PENDING", "HELD"]);
  });
});

describe("by a filter", () => {
  it("acts on the caller's own jobs that match, and a dry run only says which", async () => {
    const ada = w.users.ada;
    const mine = [await jobOf(ada, "PENDING", "f-sweep"), await jobOf(ada, "PENDING", "f-sweep")];
    const otherName = await jobOf(ada, "PENDING", "f-keep");
    const otherCluster = await jobOf(ada, "PENDING", "f-sweep", "b200");
    const running = await jobOf(ada, "RUNNING", "f-sweep");
    const theirs = await jobOf(w.users.other, "PENDING", "f-sweep");
    const filter = { state: "pending", name: "f-sweep", cluster: "h100" };

    const before = await w.counts();
    const preview = await act("ada", { action: "cancel", filter, dryRun: true });
    expect(preview.body).toEqual({ action: "cancel", jobs: mine });
    expect(await w.counts()).toEqual(before);

    const r = await act("ada", { action: "cancel", filter });
    expect(r.body).toEqual({ action: "cancel", done: mine, refused: [] });
    expect(await statesOf([...mine, otherName, otherCluster, running, theirs])).toEqual([
      "CANCELLED",
      "CANCELLED",
      "PENDING",
      "PENDING",
      "RUNNING",
      "PENDING",
    ]);
    // Without a state: every job that has not ended, here the running one and the b200 one.
    const all = await act("ada", { action: "cancel", filter: { name: "f-sweep" } });
    expect(all.body.done).toEqual([otherCluster, running]);
  });

  it("selects by budget and by state held", async () => {
    const ada = w.users.ada;
    const held = await jobOf(ada, "HELD", "g-sweep");
    const pending = await jobOf(ada, "PENDING", "g-sweep");
    const r = await act("ada", {
      action: "release",
      filter: { state: "held", budget: "lab/language/pretraining", name: "g-sweep" },
    });
    expect(r.body).toEqual({ action: "release", done: [held], refused: [] });
    expect(await statesOf([held, pending])).toEqual(["PENDING", "PENDING"]);
    const none = await act("ada", { action: "hold", filter: { budget: "lab/vision/video" } });
    expect(none.body).toEqual({ action: "hold", done: [], refused: [] });
  });
});

describe("who may act on whose jobs: each one-job rule, no other", () => {
  it("refuses another researcher's job as it refuses a job that does not exist", async () => {
    const adas = await jobOf(w.users.ada);
    for (const action of ["cancel", "hold", "release"]) {
      const r = await act("other", { action, ids: [adas, 2_000_000_001] });
      expect(r.body.done).toEqual([]);
      expect(r.body.refused).toEqual([
        { id: adas, reason: `You have no job ${adas}` },
        { id: 2_000_000_001, reason: "You have no job 2000000001" },
      ]);
    }
    expect(await stateOf(adas)).toBe("PENDING");
  });

  it("refuses everyone's jobs to a researcher, and changes nothing", async () => {
    const adas = await jobOf(w.users.ada, "PENDING", "e-sweep");
    const before = await w.counts();
    for (const who of ["ada", "other"] as const)
      for (const action of ["cancel", "hold", "release"]) {
        const r = await act(who, { action, filter: { name: "e-sweep", everyone: true } });
        expect(r.status, `${who} ${action}`).toBe(403);
        expect(r.body.error.message).toMatch(
          new RegExp(`^Only managers \\(for the budgets they manage\\)(, operators)? and admins may ${action} others' jobs`),
        );
      }
    expect(await w.counts()).toEqual(before);
    expect(await stateOf(adas)).toBe("PENDING");
  });

  it("lets a manager act on a job in their subtree, and tells one outside it that they have none", async () => {
    const adas = await jobOf(w.users.ada);
    const outside = await act("victor", { action: "hold", ids: [adas] });
    expect(outside.body.refused).toEqual([{ id: adas, reason: `You have no job ${adas}` }]);
    expect(await stateOf(adas)).toBe("PENDING");
    const inside = await act("maya", { action: "cancel", ids: [adas] });
    expect(inside.body).toEqual({ action: "cancel", done: [adas], refused: [] });
    expect(await stateOf(adas)).toBe("CANCELLED");
  });

  it("lets an operator hold and release everyone's jobs but cancel only their own", async () => {
    const adas = await jobOf(w.users.ada, "PENDING", "o-sweep");
    const others = await jobOf(w.users.other, "PENDING", "o-sweep");
    const held = await act("omar", { action: "hold", filter: { name: "o-sweep", everyone: true } });
    expect(held.body).toEqual({ action: "hold", done: [adas, others], refused: [] });
    const mine = await act("omar", { action: "hold", filter: { name: "o-sweep" } });
    expect(mine.body.done).toEqual([]);
    const cancel = await act("omar", { action: "cancel", ids: [adas] });
    expect(cancel.body.refused).toEqual([
      { id: adas, reason: `Job ${adas} is not yours: only its owner, a manager of its budget or an admin may cancel it` },
    ]);
    expect((await act("omar", { action: "cancel", filter: { name: "o-sweep", everyone: true } })).status).toBe(403);
    const released = await act("omar", { action: "release", ids: [adas, others, 2_000_000_002] });
    expect(released.body).toEqual({
      action: "release",
      done: [adas, others],
      refused: [{ id: 2_000_000_002, reason: "There is no job 2000000002" }],
    });
  });

  it("lets an admin cancel everyone's jobs", async () => {
    const jobs = [await jobOf(w.users.ada, "PENDING", "a-sweep"), await jobOf(w.users.other, "RUNNING", "a-sweep")];
    const r = await act("admin", { action: "cancel", filter: { name: "a-sweep", everyone: true } });
    expect(r.body).toEqual({ action: "cancel", done: jobs, refused: [] });
    expect(await statesOf(jobs)).toEqual(["CANCELLED", "STOPPING"]);
  });

  it("is the same rule over tRPC, and refused to nobody signed in", async () => {
    const adas = await jobOf(w.users.ada);
    expect(await w.caller("other").job.act({ action: "cancel", ids: [adas] })).toEqual({
      action: "cancel",
      done: [],
      refused: [{ id: adas, reason: `You have no job ${adas}` }],
    });
    expect(await w.caller("ada").job.act({ action: "hold", ids: [adas] })).toEqual({ action: "hold", done: [adas], refused: [] });
    const refused = await w
      .caller(null)
      .job.act({ action: "cancel", ids: [adas] })
      .catch((e: TRPCError) => e.code);
    expect(refused).toBe("UNAUTHORIZED");
    const r = await callRest(w, "POST", "/jobs/actions", { body: { action: "cancel", ids: [adas] } });
    expect(r.status).toBe(401);
    expect(await stateOf(adas)).toBe("HELD");
  });
});

describe("bounds and bad input", () => {
  it("refuses more than 1,000 jobs in one request, by ids or by a filter, and changes nothing", async () => {
    const ids = Array.from({ length: 1001 }, (_, i) => i + 1);
    const byIds = await act("ada", { action: "cancel", ids });
    expect(byIds.status).toBe(400);
    expect(byIds.body.error.message).toMatch(/more than 1,000 jobs: send at most 1,000 per request/);

    const one = await jobOf(w.users.ada, "PENDING", "bound");
    const row = await w.db.prisma.job.findUniqueOrThrow({ where: { id: one } });
    const { id: _id, ...copy } = row;
    await w.db.prisma.job.createMany({
      data: Array.from({ length: 1000 }, () => ({
        ...copy,
        env: copy.env ?? {},
        secretEnv: copy.secretEnv ?? {},
        reasonDetails: undefined,
        estimatedStartAfter: [],
      })),
    });
    const before = await w.counts();
    const byFilter = await act("ada", { action: "cancel", filter: { name: "bound" } });
    expect(byFilter.status).toBe(400);
    expect(byFilter.body.error.message).toBe(
      "The filter selects more than 1,000 jobs; one request acts on at most 1,000: narrow it by state, name, cluster or budget",
    );
    expect(await w.counts()).toEqual(before);
    expect(await w.db.prisma.job.count({ where: { name: "bound", state: "PENDING" } })).toBe(1001);
    await w.db.prisma.job.updateMany({ where: { name: "bound" }, data: { state: "CANCELLED" } });
  });

  it("refuses bad requests with a sentence naming what is wrong", async () => {
    const cases: [unknown, RegExp, number?][] = [
      [{ action: "cancel" }, /by ids or by a filter, not both and not neither/],
      [{ action: "cancel", ids: [1], filter: { state: "pending" } }, /not both/],
      [{ action: "stop", ids: [1] }, /action must be cancel, hold or release/],
      [{ action: "cancel", ids: [] }, /ids must list at least one job/],
      [{ action: "cancel", ids: ["41"] }, /ids must list job ids/],
      [{ action: "cancel", filter: {} }, /filter must name at least one of state, name, cluster or budget/],
      [{ action: "cancel", filter: { state: "stopping" } }, /filter state must be pending, running or held/],
      [{ action: "cancel", filter: { state: "pending", user: "x" } }, /unknown field 'user'/],
      [{ action: "cancel", ids: [1], dryRun: true }, /dryRun previews a filter's jobs/],
      [{ action: "cancel", filter: { cluster: "nope" } }, /There is no cluster 'nope'/, 404],
      [{ action: "cancel", filter: { budget: "lab/nope" } }, /There is no budget 'lab\/nope'/, 404],
    ];
    const before = await w.counts();
    for (const [body, message, status] of cases) {
      const r = await act("ada", body);
      expect(r.status, JSON.stringify(body)).toBe(status ?? 400);
      expect(r.body.error.message, JSON.stringify(body)).toMatch(message);
    }
    expect(await w.counts()).toEqual(before);
  });
});
