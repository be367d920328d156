import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addTreeManager, createUser, listAudit, MAX_LIVE_TOKENS_PER_USER, updateUser } from "@tranche/domain";
import { createCaller } from "../src";
import { makeWorld, goodJob, type World } from "./fixtures";

let w: World;
beforeAll(async () => {
  w = await makeWorld("api_authz");
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

describe("nobody signed in", () => {
  it("is refused by every procedure except me.get", async () => {
    const c = w.caller(null);
    expect(await c.me.get()).toBeNull();
    const calls: Promise<unknown>[] = [
      c.cluster.list(),
      c.me.budgets(),
      c.job.list(),
      c.job.submit(goodJob),
      c.job.get({ id: 1 }),
      c.job.cancel({ id: 1 }),
      c.queue.get({ cluster: "h100" }),
      c.budget.tree(),
      c.budget.history(),
      c.budget.setAllocations({ cluster: "h100", parentId: "x", allocations: [{ treeNodeId: "y", ppm: 1 }] }),
      c.node.list(),
      c.node.drain({ nodeId: "x" }),
      c.token.list(),
      c.token.create({ name: "x" }),
      c.measure.charts({ cluster: "h100" }),
    ];
    for (const p of calls) expect(await code(p)).toBe("UNAUTHORIZED");
  });
});

describe("a researcher", () => {
  it("submits to a budget they belong to, with a SUBMITTED event", async () => {
    const job = await w.caller("ada").job.submit(goodJob);
    expect(job).toMatchObject({
      state: "PENDING",
      gpus: 8,
      minRuntime: 7200,
      budget: "lab/language/pretraining",
      lane: "ALLOCATED",
      requeue: true,
    });
    const events = await w.db.prisma.jobEvent.findMany({ where: { jobId: job.id } });
    expect(events.map((e) => e.kind)).toEqual(["SUBMITTED"]);
    expect(events[0]!.sentence).toContain("Protected for 2 h");
  });

  it("may not charge a budget they are not a member of, and nothing is stored", async () => {
    const before = await w.counts();
    expect(await code(w.caller("ada").job.submit({ ...goodJob, budget: "lab/vision/video" }))).toBe("FORBIDDEN");
    expect(await w.counts()).toEqual(before);
  });

  it("gets a specific error for bad contracts and nothing is stored", async () => {
    const before = await w.counts();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ gpus: 0 }, /The number of GPUs must be at least 1/],
      [{ gpus: 12 }, /not a multiple of the node size, 8/],
      [{ gpus: 300 }, /more than the cluster has \(256\)/],
      [{ minRuntime: "9h" }, /Minimum runtime 9 h is above the cluster's limit of 8 h/],
      [{ minRuntime: -5 }, /must not be negative/],
      [{ cluster: "tpu" }, /Unknown cluster 'tpu'/],
      [{ budget: "lab/nope" }, /Unknown budget 'lab\/nope'/],
      [{ budget: "lab/language" }, /not a budget but a group/],
      [{ command: " " }, /command is required/],
    ];
    for (const [patch, msg] of cases) {
      const err = await w
        .caller("ada")
        .job.submit({ ...goodJob, ...patch } as typeof goodJob)
        .then(
          () => null,
          (e: TRPCError) => e,
        );
      expect(err?.code, JSON.stringify(patch)).toBe("BAD_REQUEST");
      expect(err?.message).toMatch(msg);
    }
    expect(await w.counts()).toEqual(before);
  });

  it("cancels and holds only their own jobs", async () => {
    const mine = await w.caller("ada").job.submit(goodJob);
    const theirs = await w.caller("other").job.submit({ ...goodJob, budget: "lab/vision/video" });
    expect(await code(w.caller("ada").job.cancel({ id: theirs.id }))).toBe("FORBIDDEN");
    expect(await code(w.caller("ada").job.hold({ id: theirs.id }))).toBe("FORBIDDEN");
    expect((await w.caller("ada").job.hold({ id: mine.id })).state).toBe("HELD");
    expect((await w.caller("ada").job.release({ id: mine.id })).state).toBe("PENDING");
    expect((await w.caller("ada").job.cancel({ id: mine.id })).state).toBe("CANCELLED");
    expect(await code(w.caller("ada").job.cancel({ id: mine.id }))).toBe("CONFLICT");
    const kinds = (await w.db.prisma.jobEvent.findMany({ where: { jobId: mine.id }, orderBy: { id: "asc" } })).map((e) => e.kind);
    expect(kinds).toEqual(["SUBMITTED", "HELD", "RELEASED", "CANCELLED"]);
    // Other people's command and env are hidden from a researcher.
    const seen = await w.caller("ada").job.get({ id: theirs.id });
    expect(seen.command).toBe("(hidden)");
    expect(await code(w.caller("ada").job.logs({ id: theirs.id }))).toBe("FORBIDDEN");
  });

  it("cancelling a running job makes it STOPPING with a grace deadline", async () => {
    const job = await w.caller("ada").job.submit({ ...goodJob, gracePeriod: 30 });
    await w.db.prisma.job.update({ where: { id: job.id }, data: { state: "RUNNING", startedAt: new Date() } });
    const t = Date.now();
    const after = await w.caller("ada").job.cancel({ id: job.id });
    expect(after.state).toBe("STOPPING");
    const graceMs = Date.parse(after.graceUntil!) - t;
    expect(graceMs).toBeGreaterThan(28_000);
    expect(graceMs).toBeLessThan(32_000);
    const ev = await w.db.prisma.jobEvent.findFirst({ where: { jobId: job.id, kind: "CANCEL_REQUESTED" } });
    expect(ev?.actorId).toBe(w.users.ada.id);
  });

  it("may not change allocations, operate nodes or list everyone's jobs", async () => {
    const c = w.caller("ada");
    const lang = await w.db.prisma.budgetTreeNode.findUniqueOrThrow({
      where: { path: "lab/language" },
      include: { children: true },
    });
    expect(
      await code(
        c.budget.setAllocations({
          cluster: "h100",
          parentId: lang.id,
          allocations: [{ treeNodeId: lang.children[0]!.id, ppm: 1 }],
        }),
      ),
    ).toBe("FORBIDDEN");
    const node = await w.db.prisma.node.findFirstOrThrow();
    for (const p of [
      c.node.cordon({ nodeId: node.id }),
      c.node.drain({ nodeId: node.id }),
      c.node.uncordon({ nodeId: node.id }),
      c.node.markRepaired({ nodeId: node.id }),
    ])
      expect(await code(p)).toBe("FORBIDDEN");
    expect(await code(c.job.list({ scope: "all" }))).toBe("FORBIDDEN");
    // The role before the input, as on REST: a researcher learns nothing from a 400 about what they sent.
    for (const input of [
      { budget: "lab/language/pretraining", maxGpusPerUser: 0 },
      { budget: "no/such/budget", maxGpusPerUser: 1 },
    ])
      expect(await code(c.budget.setUserLimit(input))).toBe("FORBIDDEN");
  });
});

describe("a manager", () => {
  it("changes allocations inside their subtree, with history and audit", async () => {
    const lang = await w.db.prisma.budgetTreeNode.findUniqueOrThrow({
      where: { path: "lab/language" },
      include: { children: { orderBy: { name: "asc" } } },
    });
    const [evaluation, multilingual] = lang.children; // evaluation 15%, multilingual 15% on h100
    const r = await w.caller("maya").budget.setAllocations({
      cluster: "h100",
      parentId: lang.id,
      allocations: [
        { treeNodeId: evaluation!.id, ppm: 100_000 },
        { treeNodeId: multilingual!.id, ppm: 200_000 },
      ],
      note: "shift to multilingual",
    });
    expect(r.changed.map((c) => [c.path, c.fromPpm, c.toPpm])).toEqual([
      ["lab/language/evaluation", 150_000, 100_000],
      ["lab/language/multilingual", 150_000, 200_000],
    ]);
    const history = await w.caller("maya").budget.history({ cluster: "h100", limit: 2 });
    expect(history.map((h) => h.actor)).toEqual(["Maya Manager", "Maya Manager"]);
    expect(await w.db.prisma.auditLog.count({ where: { action: "allocation.set", actorId: w.users.maya.id } })).toBe(1);
  });

  it("is refused outside the subtree they manage, and nothing changes", async () => {
    const lang = await w.db.prisma.budgetTreeNode.findUniqueOrThrow({
      where: { path: "lab/language" },
      include: { children: true },
    });
    const root = await w.db.prisma.budgetTreeNode.findUniqueOrThrow({ where: { path: "lab" }, include: { children: true } });
    const before = await w.counts();
    expect(
      await code(
        w.caller("victor").budget.setAllocations({
          cluster: "h100",
          parentId: lang.id,
          allocations: [{ treeNodeId: lang.children[0]!.id, ppm: 0 }],
        }),
      ),
    ).toBe("FORBIDDEN");
    expect(
      await code(
        w.caller("maya").budget.setAllocations({
          cluster: "h100",
          parentId: root.id,
          allocations: [{ treeNodeId: root.children[0]!.id, ppm: 0 }],
        }),
      ),
    ).toBe("FORBIDDEN");
    expect(
      await code(
        w
          .caller("victor")
          .budget.whatIf({ cluster: "h100", parentId: lang.id, allocations: [{ treeNodeId: lang.children[0]!.id, ppm: 0 }] }),
      ),
    ).toBe("FORBIDDEN");
    expect(await w.counts()).toEqual(before);
  });

  it("cannot make siblings sum above 100%, exactly in ppm", async () => {
    const lang = await w.db.prisma.budgetTreeNode.findUniqueOrThrow({
      where: { path: "lab/language" },
      include: { children: { include: { allocations: true } } },
    });
    const h100 = await w.db.prisma.cluster.findUniqueOrThrow({ where: { name: "h100" } });
    const sum = lang.children.reduce((s, c) => s + (c.allocations.find((a) => a.clusterId === h100.id)?.ppm ?? 0), 0);
    const first = lang.children[0]!;
    const firstPpm = first.allocations.find((a) => a.clusterId === h100.id)!.ppm;
    const before = await w.counts();
    const err = await w
      .caller("maya")
      .budget.setAllocations({
        cluster: "h100",
        parentId: lang.id,
        allocations: [{ treeNodeId: first.id, ppm: firstPpm + (1_000_000 - sum) + 1 }],
      })
      .catch((e: TRPCError) => e);
    expect((err as TRPCError).code).toBe("BAD_REQUEST");
    expect((err as TRPCError).message).toMatch(/would sum to 100\.0001%; siblings may sum to at most 100%/);
    expect(await w.counts()).toEqual(before);
    // Exactly 100% is fine.
    await w.caller("maya").budget.setAllocations({
      cluster: "h100",
      parentId: lang.id,
      allocations: [{ treeNodeId: first.id, ppm: firstPpm + (1_000_000 - sum) }],
    });
  });

  it("previews an allocation change with the core's runCycle without storing anything", async () => {
    const lang = await w.db.prisma.budgetTreeNode.findUniqueOrThrow({
      where: { path: "lab/language" },
      include: { children: { orderBy: { name: "asc" } } },
    });
    const before = await w.counts();
    const r = await w
      .caller("maya")
      .budget.whatIf({ cluster: "h100", parentId: lang.id, allocations: [{ treeNodeId: lang.children[0]!.id, ppm: 50_000 }] });
    expect(r.valid).toBe(true);
    expect(r.pendingCount).toBeGreaterThan(0);
    expect(r.order.length).toBeGreaterThan(0);
    expect(await w.counts()).toEqual(before);
  });

  it("may not operate nodes", async () => {
    const node = await w.db.prisma.node.findFirstOrThrow();
    expect(await code(w.caller("maya").node.drain({ nodeId: node.id }))).toBe("FORBIDDEN");
  });

  it("given another role, manages nothing any more though their subtree stays on record", async () => {
    const admin = w.users.admin;
    const { user } = await createUser(
      w.db.prisma,
      admin,
      { email: "mo@tranche.example", name: "Mo", role: "MANAGER" },
      "http://x",
    );
    await addTreeManager(w.db.prisma, admin, "lab/language", user.email);
    await updateUser(w.db.prisma, admin, user.id, { role: "RESEARCHER" });
    const mo = createCaller({
      prisma: w.db.prisma,
      user: { id: user.id, email: user.email, name: user.name, role: "RESEARCHER" },
    });
    const before = await w.db.prisma.budgetTreeNode.findUniqueOrThrow({ where: { path: "lab/language/pretraining" } });
    expect(await code(mo.budget.setUserLimit({ budget: "lab/language/pretraining", maxGpusPerUser: 1 }))).toBe("FORBIDDEN");
    const after = await w.db.prisma.budgetTreeNode.findUniqueOrThrow({ where: { path: "lab/language/pretraining" } });
    expect(after.maxGpusPerUser).toBe(before.maxGpusPerUser);
    expect((await mo.budget.tree()).managedPaths).toEqual([]);
  });
});

describe("an operator", () => {
  it("is refused an admin's work in words that name the role: 'an operator'", async () => {
    await expect(w.caller("omar").admin.users()).rejects.toThrow("This needs the admin role; you are signed in as an operator.");
    await expect(w.caller("ada").admin.users()).rejects.toThrow(/you are signed in as a researcher\.$/);
    await expect(listAudit(w.db.prisma, w.users.ada, {})).rejects.toThrow(
      "Only operators and managers may read the audit log; you are signed in as a researcher.",
    );
  });

  it("cordons, drains, uncordons and marks repaired, each with a node event and audit row", async () => {
    const c = w.caller("omar");
    const node = await w.db.prisma.node.findFirstOrThrow({ where: { name: "b200-3" } });
    expect((await c.node.cordon({ nodeId: node.id, reason: "fan noise" })).state).toBe("CORDONED");
    const drained = await c.node.drain({ nodeId: node.id });
    expect(drained.state).toBe("DRAINING");
    expect(drained.drainIsManual).toBe(true);
    expect((await c.node.uncordon({ nodeId: node.id })).state).toBe("READY");
    expect(await code(c.node.markRepaired({ nodeId: node.id }))).toBe("CONFLICT");
    await w.db.prisma.node.update({ where: { id: node.id }, data: { state: "REPAIR" } });
    expect((await c.node.markRepaired({ nodeId: node.id })).state).toBe("READY");
    const events = await w.db.prisma.nodeEvent.findMany({ where: { nodeId: node.id }, orderBy: { id: "asc" } });
    expect(events.map((e) => [e.toState, e.automatic, e.actorId])).toEqual([
      ["CORDONED", false, w.users.omar.id],
      ["DRAINING", false, w.users.omar.id],
      ["READY", false, w.users.omar.id],
      ["READY", false, w.users.omar.id],
    ]);
    expect(await w.db.prisma.auditLog.count({ where: { targetId: node.id } })).toBe(4);
  });

  it("may hold others' pending jobs but not change allocations or charge budgets", async () => {
    const theirs = await w.caller("other").job.submit({ ...goodJob, budget: "lab/vision/video" });
    expect((await w.caller("omar").job.hold({ id: theirs.id })).state).toBe("HELD");
    // Its owner cannot lift an operator's hold; the operator can.
    const before = await w.counts();
    expect(await code(w.caller("other").job.release({ id: theirs.id }))).toBe("FORBIDDEN");
    expect((await w.caller("other").job.detail({ id: theirs.id })).canHold).toBe(false);
    expect(await w.counts()).toEqual(before);
    expect((await w.caller("omar").job.release({ id: theirs.id })).state).toBe("PENDING");
    expect(await code(w.caller("omar").job.cancel({ id: theirs.id }))).toBe("FORBIDDEN");
    expect(await code(w.caller("omar").job.submit(goodJob))).toBe("FORBIDDEN");
    const lang = await w.db.prisma.budgetTreeNode.findUniqueOrThrow({
      where: { path: "lab/language" },
      include: { children: true },
    });
    expect(
      await code(
        w.caller("omar").budget.setAllocations({
          cluster: "h100",
          parentId: lang.id,
          allocations: [{ treeNodeId: lang.children[0]!.id, ppm: 0 }],
        }),
      ),
    ).toBe("FORBIDDEN");
  });
});

describe("an admin", () => {
  it("may do everything", async () => {
    const c = w.caller("admin");
    const job = await c.job.submit({ ...goodJob, budget: "lab/vision/video" });
    expect((await c.job.cancel({ id: job.id })).state).toBe("CANCELLED");
    const root = await w.db.prisma.budgetTreeNode.findUniqueOrThrow({
      where: { path: "lab" },
      include: { children: { orderBy: { name: "asc" } } },
    });
    await c.budget.setAllocations({
      cluster: "b200",
      parentId: root.id,
      allocations: [{ treeNodeId: root.children[0]!.id, ppm: 450_000 }],
    });
    const node = await w.db.prisma.node.findFirstOrThrow({ where: { name: "h100-7" } });
    expect((await c.node.cordon({ nodeId: node.id })).state).toBe("CORDONED");
    expect((await c.job.list({ scope: "all" })).length).toBeGreaterThan(0);
  });
});

describe("API tokens", () => {
  it("are created for oneself, stored hashed, and revocable", async () => {
    const { token, apiToken } = await w.caller("ada").token.create({ name: "laptop" });
    expect(token).toMatch(/^trn_/);
    const row = await w.db.prisma.apiToken.findUniqueOrThrow({ where: { id: apiToken.id } });
    expect(row.tokenHash).not.toContain(token);
    expect(row.tokenHash).toHaveLength(64);
    expect(await code(w.caller("victor").token.revoke({ id: apiToken.id }))).toBe("FORBIDDEN");
    expect((await w.caller("ada").token.revoke({ id: apiToken.id })).revokedAt).not.toBeNull();
  });

  it("are bounded per person: past MAX_LIVE_TOKENS_PER_USER live ones a new one is refused until one is revoked", async () => {
    const c = w.caller("maya");
    const live = await w.db.prisma.apiToken.count({ where: { userId: w.users.maya.id, revokedAt: null } });
    const made = [];
    for (let i = live; i < MAX_LIVE_TOKENS_PER_USER; i++) {
      made.push((await c.token.create({ name: `t${i}` })).apiToken);
      // Made hours ago, as over a lab's months: the hourly bound on making tokens is another test's.
      await w.db.prisma.apiToken.update({
        where: { id: made.at(-1)!.id },
        data: { createdAt: new Date(Date.now() - 3 * 3_600_000) },
      });
    }
    const before = await w.db.prisma.apiToken.count();
    await expect(c.token.create({ name: "one too many" })).rejects.toThrow(/already hold 100 live API tokens/);
    expect(await w.db.prisma.apiToken.count()).toBe(before);
    // Another person is not affected, and a revoked token frees its place.
    await w.caller("victor").token.create({ name: "victor's" });
    await c.token.revoke({ id: made[0]!.id });
    expect((await c.token.create({ name: "after a revoke" })).token).toMatch(/^trn_/);
  });
});
