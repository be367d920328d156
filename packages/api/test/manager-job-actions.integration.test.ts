import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobActionPreview, JobActionResult } from "@tranche/contracts";
import type { Actor } from "@tranche/domain";
import { createCaller } from "../src";
import { goodJob, makeWorld, type World } from "./fixtures";

// Who may hold, release, cancel and change a job (actor.ts: mayHold, mayCancel, managesJob): its owner,
// managers of a subtree its budget lies in (as Slurm's coordinators), operators (not cancel) and admins.
// Ada's job is charged to lab/language/pretraining.

type Who =
  "owner" | "budgetManager" | "ancestorManager" | "siblingManager" | "managerOfNothing" | "researcher" | "operator" | "admin";
const WHO: Who[] = [
  "owner",
  "budgetManager",
  "ancestorManager",
  "siblingManager",
  "managerOfNothing",
  "researcher",
  "operator",
  "admin",
];
const MAY_HOLD: Who[] = ["owner", "budgetManager", "ancestorManager", "operator", "admin"];
const MAY_CANCEL: Who[] = ["owner", "budgetManager", "ancestorManager", "admin"];

let w: World;
let actors: Record<Who, Actor>;
const caller = (who: Who) => createCaller({ prisma: w.db.prisma, user: actors[who] });

async function manager(name: string, email: string, manages: string | null): Promise<Actor> {
  const u = await w.db.prisma.user.create({ data: { email, name, role: "MANAGER" } });
  if (manages) {
    const node = await w.db.prisma.budgetTreeNode.findUniqueOrThrow({ where: { path: manages } });
    await w.db.prisma.budgetManager.create({ data: { treeNodeId: node.id, userId: u.id } });
  }
  return { id: u.id, email: u.email, name: u.name, role: "MANAGER" };
}

beforeAll(async () => {
  w = await makeWorld("api_manager_job_actions");
  actors = {
    owner: w.users.ada,
    budgetManager: await manager("Grace", "grace@tranche.example", "lab/language/pretraining"),
    ancestorManager: w.users.maya,
    siblingManager: w.users.victor,
    managerOfNothing: await manager("Nell", "nell@tranche.example", null),
    researcher: w.users.other,
    operator: w.users.omar,
    admin: w.users.admin,
  };
});
afterAll(async () => {
  await w?.db.drop();
});

/** A fresh job of Ada's, waiting (held by Ada herself when `held`). */
async function adasJob(held = false): Promise<number> {
  const { id } = await w.caller("ada").job.submit({ ...goodJob, gpus: 1 });
  if (held) await w.caller("ada").job.hold({ id });
  return id;
}

const row = (id: number) => w.db.prisma.job.findUniqueOrThrow({ where: { id }, select: { state: true, name: true } });

const ACTIONS = {
  hold: { may: MAY_HOLD, held: false, run: (who: Who, id: number) => caller(who).job.hold({ id }), after: "HELD" },
  release: { may: MAY_HOLD, held: true, run: (who: Who, id: number) => caller(who).job.release({ id }), after: "PENDING" },
  cancel: { may: MAY_CANCEL, held: false, run: (who: Who, id: number) => caller(who).job.cancel({ id }), after: "CANCELLED" },
  update: {
    may: MAY_HOLD,
    held: false,
    run: (who: Who, id: number) => caller(who).job.update({ id, name: `renamed-${who}` }),
    after: "PENDING",
  },
} as const;

describe("acting on someone else's job, by role", () => {
  for (const [action, a] of Object.entries(ACTIONS)) {
    for (const who of WHO) {
      const may = (a.may as readonly Who[]).includes(who);
      it(`${action}: the ${who} ${may ? "may" : "may not"}`, async () => {
        const id = await adasJob(a.held);
        const before = await row(id);
        if (may) {
          await a.run(who, id);
          expect((await row(id)).state).toBe(a.after);
          if (action === "update") expect((await row(id)).name).toBe(`renamed-${who}`);
        } else {
          await expect(a.run(who, id)).rejects.toMatchObject({ code: "FORBIDDEN" });
          expect(await row(id)).toEqual(before);
        }
      });
    }
  }

  for (const who of WHO) {
    const mayHold = MAY_HOLD.includes(who);
    const mayCancel = MAY_CANCEL.includes(who);
    it(`bulk (job.act): the ${who} ${mayHold ? "may" : "may not"} hold and ${mayCancel ? "may" : "may not"} cancel`, async () => {
      const id = await adasJob();
      const act = async (input: { action: "hold" | "cancel"; ids: number[] }) =>
        (await caller(who).job.act(input)) as JobActionResult;
      const hold = await act({ action: "hold", ids: [id] });
      expect(hold.done).toEqual(mayHold ? [id] : []);
      expect((await row(id)).state).toBe(mayHold ? "HELD" : "PENDING");
      const cancel = await act({ action: "cancel", ids: [id] });
      expect(cancel.done).toEqual(mayCancel ? [id] : []);
      expect((await row(id)).state).toBe(mayCancel ? "CANCELLED" : mayHold ? "HELD" : "PENDING");
    });
  }

  it("the job page offers its buttons by the same rule", async () => {
    const id = await adasJob();
    for (const who of WHO) {
      const d = await caller(who).job.detail({ id });
      expect({ who, canHold: d.canHold, canCancel: d.canCancel }).toEqual({
        who,
        canHold: MAY_HOLD.includes(who),
        canCancel: MAY_CANCEL.includes(who),
      });
    }
  });

  it("a manager outside the job's subtree is refused in bulk in the words for a missing job, as before", async () => {
    const id = await adasJob();
    const res = (await caller("siblingManager").job.act({ action: "cancel", ids: [id, 999999] })) as JobActionResult;
    expect(res.refused).toEqual([
      { id, reason: `You have no job ${id}` },
      { id: 999999, reason: "You have no job 999999" },
    ]);
  });
});

describe("a manager's action on a member's job", () => {
  it("names the manager and the subtree they manage in the job's timeline, which the owner reads", async () => {
    const id = await adasJob(true);
    await caller("budgetManager").job.release({ id });
    await caller("ancestorManager").job.hold({ id });
    const events = (await w.caller("ada").job.detail({ id })).events.filter((e) => e.kind === "HELD" || e.kind === "RELEASED");
    expect(events.map((e) => [e.sentence, e.actorName])).toEqual([
      ["Held by Ada Researcher: the scheduler skips it until it is released.", "Ada Researcher"],
      ["Released by Grace, manager of lab/language/pretraining: waiting in line again.", "Grace"],
      ["Held by Maya Manager, manager of lab/language: the scheduler skips it until it is released.", "Maya Manager"],
    ]);
  });

  it("a manager's hold is not the owner's to lift; an owner's own hold a manager may lift", async () => {
    const id = await adasJob();
    await caller("ancestorManager").job.hold({ id });
    await expect(caller("owner").job.release({ id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect((await caller("owner").job.detail({ id })).canHold).toBe(false);
    // Another manager of the subtree may not lift it either: only its holder, an operator or an admin.
    await expect(caller("budgetManager").job.release({ id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await caller("ancestorManager").job.release({ id });
    expect((await row(id)).state).toBe("PENDING");
  });

  it("a manager's arrays follow the same rule", async () => {
    const { id } = await w.caller("ada").job.submit({ ...goodJob, gpus: 1, array: "0-2" });
    expect(await caller("siblingManager").job.array({ id })).toMatchObject({ mayHold: false, mayCancel: false });
    await expect(caller("siblingManager").job.holdArray({ id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await caller("ancestorManager").job.array({ id })).toMatchObject({ mayHold: true, mayCancel: true });
    expect(await caller("ancestorManager").job.holdArray({ id })).toMatchObject({ held: 3 });
    expect(await caller("ancestorManager").job.releaseArray({ id })).toMatchObject({ released: 3 });
    expect(await caller("ancestorManager").job.cancelArray({ id })).toMatchObject({ cancelled: 3 });
  });

  it("everyone, for a manager, selects their own jobs and those of the budgets they manage", async () => {
    const language = await adasJob();
    const vision = await w.caller("other").job.submit({ ...goodJob, gpus: 1, budget: "lab/vision/video" });
    const pick = async (who: Who) =>
      new Set(
        (
          (await caller(who).job.act({
            action: "hold",
            dryRun: true,
            filter: { everyone: true, state: "pending" },
          })) as JobActionPreview
        ).jobs,
      );
    const maya = await pick("ancestorManager");
    expect([maya.has(language), maya.has(vision.id)]).toEqual([true, false]);
    const victor = await pick("siblingManager");
    expect([victor.has(language), victor.has(vision.id)]).toEqual([false, true]);
    expect((await pick("managerOfNothing")).size).toBe(0);
    await expect(
      caller("researcher").job.act({ action: "hold", filter: { everyone: true, state: "pending" } }),
    ).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
  });
});

describe("a manager changing a member's budget", () => {
  const budgetOf = async (id: number) =>
    (await w.db.prisma.job.findUniqueOrThrow({ where: { id }, include: { budget: true } })).budget.path;

  it("stays inside the subtree they manage; the owner, operators and admins are not bound by it", async () => {
    // Ada is a member of lab/language/pretraining and lab/language/evaluation; Grace manages only the first.
    const id = await adasJob();
    await expect(caller("budgetManager").job.update({ id, budget: "lab/language/evaluation" })).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: `Job ${id} may not be moved to 'lab/language/evaluation': you manage the budget it is charged to, not that one`,
    });
    expect(await budgetOf(id)).toBe("lab/language/pretraining");
    // Maya manages lab/language, both budgets.
    expect((await caller("ancestorManager").job.update({ id, budget: "lab/language/evaluation" })).changed).toBe(true);
    expect(await budgetOf(id)).toBe("lab/language/evaluation");
    for (const who of ["owner", "operator", "admin"] as const) {
      const back = await caller(who).job.update({ id, budget: "lab/language/pretraining" });
      expect([who, back.changed]).toEqual([who, true]);
      await caller(who).job.update({ id, budget: "lab/language/evaluation" });
    }
  });

  it("holds for an array's tasks too", async () => {
    // An array's id is its first task's.
    const { id } = await w.caller("ada").job.submit({ ...goodJob, gpus: 1, array: "0-1" });
    await expect(caller("budgetManager").job.updateArray({ id, budget: "lab/language/evaluation" })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    const tasks = await w.db.prisma.job.findMany({ where: { arrayJobId: id }, include: { budget: true } });
    expect(tasks.map((t) => t.budget.path)).toEqual(["lab/language/pretraining", "lab/language/pretraining"]);
    expect((await caller("ancestorManager").job.updateArray({ id, budget: "lab/language/evaluation" })).updated).toBe(2);
  });
});
