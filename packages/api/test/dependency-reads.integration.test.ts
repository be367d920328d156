import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@tranche/domain";
import { waitingDependenciesSql } from "@tranche/domain/runtime";
import { callRest, goodJob, makeWorld, type World } from "./fixtures";

// Every cycle reads where each waiting job's dependencies stand. Read once per dependency, an array
// waiting for another array read the parent's every task once per waiting task, unless Postgres chose
// to keep the answer (here, a fresh database, it did not). Each parent is read once, so the rows read
// grow with the tasks and the dependencies, never with their product. Counted by Postgres, not timed.

let w: World;
let token: string;

beforeAll(async () => {
  w = await makeWorld("api_dependency_reads");
  token = (await createApiToken(w.db.prisma, w.users.ada, { name: "test" })).token;
});
afterAll(async () => {
  await w?.db.drop();
});

interface PlanNode {
  "Relation Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  Plans?: PlanNode[];
}

/** Rows the plan's scans of `job` produced, over all their loops. */
function jobRowsRead(node: PlanNode): number {
  const here = node["Relation Name"] === "job" ? (node["Actual Rows"] ?? 0) * (node["Actual Loops"] ?? 1) : 0;
  return here + (node.Plans ?? []).reduce((n, p) => n + jobRowsRead(p), 0);
}

describe("where waiting jobs' dependencies stand", () => {
  it("reads each parent array once, however many tasks wait for it", async () => {
    const parent = await callRest(w, "POST", "/jobs", { token, body: { ...goodJob, array: "0-999" } });
    expect(parent.status).toBe(201);
    const parentId: number = parent.body.job.id;
    const children = await callRest(w, "POST", "/jobs", {
      token,
      body: { ...goodJob, array: "0-499", after: [String(parentId)] },
    });
    expect(children.status).toBe(201);
    const cluster = await w.db.prisma.cluster.findUniqueOrThrow({ where: { name: goodJob.cluster } });

    const sql = waitingDependenciesSql(cluster.id);
    const rows = await w.db.prisma.$queryRaw<{ parentId: number; state: string }[]>(sql);
    expect(rows.length).toBe(500);
    expect(rows.every((r) => r.parentId === parentId && r.state === "WAITING")).toBe(true);

    const [plan] = await w.db.prisma.$queryRawUnsafe<{ "QUERY PLAN": [{ Plan: PlanNode }] }[]>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${sql.text}`,
      ...sql.values,
    );
    // The parent's 1,000 tasks once and the 500 waiting tasks, a few times over: not 500 x 1,000.
    expect(jobRowsRead(plan!["QUERY PLAN"][0].Plan)).toBeLessThan(10_000);
  });
});
