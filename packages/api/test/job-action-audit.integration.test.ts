import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobActionResult } from "@tranche/contracts";
import type { Actor } from "@tranche/domain";
import { createCaller } from "../src";
import { goodJob, makeWorld, type World } from "./fixtures";

// An action on someone else's job writes an audit row (who, what, whose job, its budget); the owner's own
// actions do not. Who may act is unchanged (manager-job-actions.integration.test.ts). Who reads the rows:
// admins, operators, and managers of the subtree the job's budget lies in. Ada's job is charged to
// lab/language/pretraining.

type Who = "owner" | "budgetManager" | "ancestorManager" | "siblingManager" | "researcher" | "operator" | "admin";
const MAY_HOLD: Who[] = ["owner", "budgetManager", "ancestorManager", "operator", "admin"];
const MAY_CANCEL: Who[] = ["owner", "budgetManager", "ancestorManager", "admin"];
const ALL: Who[] = ["owner", "budgetManager", "ancestorManager", "siblingManager", "researcher", "operator", "admin"];

let w: World;
let actors: Record<Who, Actor>;
const caller = (who: Who) => createCaller({ prisma: w.db.prisma, user: actors[who] });

beforeAll(async () => {
  w = await makeWorld("api_job_action_audit");
  const u = await w.db.prisma.user.create({ data: { email: "grace@tranche.example", name: "Grace", role: "MANAGER" } });
  const node = await w.db.prisma.budgetTreeNode.findUniqueOrThrow({ where: { path: "lab/language/pretraining" } });
  await w.db.prisma.budgetManager.create({ data: { treeNodeId: node.id, userId: u.id } });
  actors = {
    owner: w.users.ada,
    budgetManager: { id: u.id, email: u.email, name: u.name, role: "MANAGER" },
    ancestorManager: w.users.maya,
    siblingManager: w.users.victor,
    researcher: w.users.other,
    operator: w.users.omar,
    admin: w.users.admin,
  };
});
afterAll(async () => {
  await w?.db.drop();
});

async function adasJob(held = false): Promise<number> {
  const { id } = await w.caller("ada").job.submit({ ...goodJob, gpus: 1, name: "audited" });
  if (held) await w.caller("ada").job.hold({ id });
  return id;
}
const rowsOf = (id: number) => w.db.prisma.auditLog.findMany({ where: { targetType: "job", targetId: String(id) } });

const ACTIONS = {
  hold: { may: MAY_HOLD, held: false, code: "job.hold", run: (who: Who, id: number) => caller(who).job.hold({ id }) },
  release: { may: MAY_HOLD, held: true, code: "job.release", run: (who: Who, id: number) => caller(who).job.release({ id }) },
  cancel: { may: MAY_CANCEL, held: false, code: "job.cancel", run: (who: Who, id: number) => caller(who).job.cancel({ id }) },
} as const;

describe.each(Object.entries(ACTIONS))("%s", (_name, a) => {
  it.each(ALL)("by %s: a row when it is someone else's job and allowed, none otherwise", async (who) => {
    const id = await adasJob(a.held);
    // Ada's own hold of a job to release wrote none.
    expect(await rowsOf(id)).toEqual([]);
    const done = await a.run(who, id).then(
      () => true,
      () => false,
    );
    expect(done).toBe(a.may.includes(who));
    const rows = await rowsOf(id);
    if (!done || who === "owner") return expect(rows).toEqual([]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      actorId: actors[who].id,
      action: a.code,
      details: { target: `job #${id} audited`, owner: w.users.ada.email, budget: "lab/language/pretraining" },
    });
  });
});

describe("a whole array's waiting tasks", () => {
  it("an operator's hold and release and a manager's cancel write one row each, naming the array and how many tasks; the owner's write none", async () => {
    const id = (await w.caller("ada").job.submit({ ...goodJob, gpus: 1, name: "sweep", array: "0-2" })).id;
    await caller("owner").job.holdArray({ id });
    await caller("owner").job.releaseArray({ id });
    expect(await rowsOf(id)).toEqual([]);
    await caller("operator").job.holdArray({ id });
    await caller("operator").job.releaseArray({ id });
    await caller("budgetManager").job.cancelArray({ id });
    const rows = (await rowsOf(id)).sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(rows.map((r) => [r.action, r.actorId, (r.details as { target: string }).target])).toEqual([
      ["job.hold", actors.operator.id, `array ${id} sweep: 3 tasks`],
      ["job.release", actors.operator.id, `array ${id} sweep: 3 tasks`],
      ["job.cancel", actors.budgetManager.id, `array ${id} sweep: 3 tasks`],
    ]);
    expect(rows[2]!.details).toMatchObject({ owner: w.users.ada.email, budget: "lab/language/pretraining" });
  });
});

describe("the rows in the audit log", () => {
  it("an admin's cancel through POST /jobs/actions writes one too, and admins, operators and the job's managers read it by its filters", async () => {
    const id = await adasJob();
    const r = (await caller("admin").job.act({ action: "cancel", ids: [id] })) as JobActionResult;
    expect(r.done).toEqual([id]);
    const sees = async (who: Who) =>
      (await caller(who).admin.audit({ action: "job.", target: `job #${id}` })).map((e) => [e.action, e.actor?.email, e.target]);
    const row = [["job.cancel", w.users.admin.email, `job #${id} audited`]];
    for (const who of ["admin", "operator", "budgetManager", "ancestorManager"] as const)
      expect(await sees(who), who).toEqual(row);
    expect(await sees("siblingManager")).toEqual([]);
    await expect(caller("researcher").admin.audit({})).rejects.toMatchObject({ code: "FORBIDDEN" });
  });
});
