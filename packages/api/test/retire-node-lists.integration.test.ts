// Retiring a node that waiting jobs name in their node lists (--nodelist): the operator is warned with a
// count (CLI, REST), the owner of each job it strands is told once, the job's reason says it will never
// start and how to change it, and a submit or update naming a retired node is refused in words. A real
// CLI process, REST handler and Postgres.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@tranche/domain";
import { acquireOrRenewLease, applyCyclePlan, loadCycleInput } from "@tranche/domain/runtime";
import { runCycle } from "@tranche/scheduler-core";
import { callRest, goodJob } from "./fixtures";
import { startCliStack, type CliStack } from "./cli-stack";

type Who = "omar" | "ada";
let stack: CliStack<Who>;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  stack = await startCliStack("api_retire_node_lists", { users: ["omar", "ada"], tmpPrefix: "tranche-retire-lists-" });
  for (const u of ["omar", "ada", "other"] as const)
    tokens[u] = (await createApiToken(stack.w.db.prisma, stack.w.users[u], { name: "test" })).token;
});
afterAll(() => stack?.stop());

const submit = async (over: object): Promise<number> => {
  const r = await callRest(stack.w, "POST", "/jobs", {
    token: tokens.ada!,
    body: { ...goodJob, cluster: "b200", name: "train", ...over },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.job.id as number;
};
const notices = () => stack.w.db.prisma.notification.findMany({ where: { kind: "NODE_RETIRED" }, orderBy: { id: "asc" } });

describe("retiring a node that waiting jobs name", () => {
  let only6 = 0;
  let six7 = 0;

  it("warns the operator with a count, and tells the owner of the one job it strands, once", async () => {
    const { prisma } = stack.w.db;
    await prisma.user.update({ where: { id: stack.w.users.ada.id }, data: { webhookUrl: "https://hooks.example/ada" } });
    only6 = await submit({ nodes: ["b200-6"] });
    six7 = await submit({ nodes: ["b200-6", "b200-7"] });
    await submit({ excludeNodes: ["b200-6"] }); // avoids it: not counted
    const r = await stack.cli(["node", "retire", "b200-6"], "omar");
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain(
      "A token issued for b200-6 brings it back. Warning: 2 waiting jobs name b200-6 in their node lists; 1 of them can never start now unless its owner changes that list (the owner was told), the others may still run on the other nodes listed.\n",
    );
    const sent = await notices();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      userId: stack.w.users.ada.id,
      jobId: only6,
      title: `Job train (#${only6}) will never start: node b200-6 was retired`,
      webhookState: "PENDING",
    });
    expect(sent[0]!.sentence).toBe(
      `Node b200-6 of b200 was taken out of service for good, and job train (#${only6}) can now never start as its node lists stand: the only node it may run on, 'b200-6', is no longer in service (retired or removed). Change them (tranche update ${only6} --nodelist with nodes in service, or --nodelist none to run on any node), or cancel it.`,
    );
  });

  it("REST: the retirement's answer counts the waiting jobs naming the node and those it strands", async () => {
    const r = await callRest(stack.w, "POST", "/nodes/b200-7/retire", { token: tokens.omar!, body: {} });
    expect(r.status).toBe(200);
    expect(r.body.node).toMatchObject({ node: "b200-7", waitingNamingIt: 1, strandedJobs: 1 });
    expect((await notices()).map((n) => n.jobId)).toEqual([only6, six7]);
  });

  it("the job's reason says it will never start and how to change it; cycles notify nothing more", async () => {
    const { prisma } = stack.w.db;
    const node = await prisma.node.findUniqueOrThrow({ where: { name: "b200-7" } });
    expect(await acquireOrRenewLease(prisma, "test", 60)).toBe(true);
    const t0 = Math.floor(Date.now() / 1000);
    for (const t of [t0, t0 + 5]) {
      const input = await loadCycleInput(prisma, node.clusterId, t);
      await applyCyclePlan(prisma, input, runCycle(input.snapshot, input.policy, input.now), "test", { loadMs: 0, decideMs: 0 });
    }
    const row = await prisma.job.findUniqueOrThrow({ where: { id: only6 } });
    expect([row.state, row.reasonCode]).toEqual(["PENDING", "NODE_CONSTRAINT"]);
    expect(row.reasonSentence).toMatch(
      new RegExp(
        `^Will never start as its node lists stand: the only node it may run on, 'b200-6', is no longer in service \\(retired or removed\\)\\. Change them \\(tranche update ${only6} --nodelist`,
      ),
    );
    expect(await notices()).toHaveLength(2);
  });

  it("refuses a submit or an update naming a retired node, in words, and changes nothing", async () => {
    const { prisma } = stack.w.db;
    const jobsBefore = await prisma.job.count();
    const rest = await callRest(stack.w, "POST", "/jobs", {
      token: tokens.ada!,
      body: { ...goodJob, cluster: "b200", nodes: ["b200-6"] },
    });
    expect([rest.status, rest.body.error], JSON.stringify(rest.body)).toEqual([
      400,
      expect.objectContaining({ message: "node 'b200-6' is retired" }),
    ]);
    const cli = await stack.cli(
      [
        "submit",
        "--cluster",
        "b200",
        "--budget",
        goodJob.budget,
        "--gpus",
        "8",
        "--min-runtime",
        "2h",
        "--nodelist",
        "b200-7",
        "--",
        "python",
        "x.py",
      ],
      "ada",
    );
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toContain("node 'b200-7' is retired");
    expect(await prisma.job.count()).toBe(jobsBefore);

    // A waiting job without lists (the cycles above may have started the others).
    const fresh = await submit({});
    const before = await prisma.job.findUniqueOrThrow({ where: { id: fresh } });
    const upd = await stack.cli(["update", String(fresh), "--nodelist", "b200-6"], "ada");
    expect(upd.code).not.toBe(0);
    expect(upd.stderr).toContain("node 'b200-6' is retired");
    await expect(stack.w.caller("ada").job.update({ id: fresh, nodes: ["b200-7"] })).rejects.toThrow("node 'b200-7' is retired");
    const after = await prisma.job.findUniqueOrThrow({ where: { id: fresh } });
    expect([after.nodeList, after.revision]).toEqual([before.nodeList, before.revision]);
    // The stranded job's owner changes its list to nodes in service, and it may run again.
    const fixed = await stack.cli(["update", String(only6), "--nodelist", "b200-8"], "ada");
    expect(fixed.stderr).toBe("");
    expect((await prisma.job.findUniqueOrThrow({ where: { id: only6 } })).nodeList).toEqual(["b200-8"]);
  });

  it("avoiding a retired node is accepted: the job avoids it as it avoids every node not in service", async () => {
    const id = await submit({ excludeNodes: ["b200-6", "b200-1"] });
    const row = await stack.w.db.prisma.job.findUniqueOrThrow({ where: { id } });
    expect([row.state, row.excludeNodes]).toEqual(["PENDING", ["b200-6", "b200-1"]]);
    const cli = await stack.cli(["update", String(id), "--exclude", "b200-7"], "ada");
    expect(cli.stderr).toBe("");
    expect((await stack.w.db.prisma.job.findUniqueOrThrow({ where: { id } })).excludeNodes).toEqual(["b200-7"]);
  });

  it("a node retired through another process is refused at once, though this process read the cluster a moment before", async () => {
    const { prisma } = stack.w.db;
    await submit({ nodes: ["b200-5"] }); // this process now holds b200's nodes for a few seconds
    // Another web process retires it: this one's cache is not told.
    await prisma.node.update({ where: { name: "b200-5" }, data: { state: "RETIRED" } });
    const jobsBefore = await prisma.job.count();
    const rest = await callRest(stack.w, "POST", "/jobs", {
      token: tokens.ada!,
      body: { ...goodJob, cluster: "b200", nodes: ["b200-5"] },
    });
    expect([rest.status, rest.body.error], JSON.stringify(rest.body)).toEqual([
      400,
      expect.objectContaining({ message: "node 'b200-5' is retired" }),
    ]);
    const waiting = await submit({});
    await expect(stack.w.caller("ada").job.update({ id: waiting, nodes: ["b200-5"] })).rejects.toThrow(
      "node 'b200-5' is retired",
    );
    expect(await prisma.job.count()).toBe(jobsBefore + 1);
  });

  it("only operators retire: a researcher is refused and no notification is written", async () => {
    for (const u of ["ada", "other"] as const) {
      const r = await callRest(stack.w, "POST", "/nodes/b200-8/retire", { token: tokens[u]!, body: {} });
      expect(r.status).toBe(403);
    }
    expect((await stack.w.db.prisma.node.findUniqueOrThrow({ where: { name: "b200-8" } })).state).toBe("READY");
    expect(await notices()).toHaveLength(2);
  });
});
