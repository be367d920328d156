// Hosts whose clocks are off by minutes (found by bench/fault-campaign.bench.ts): two real agent
// processes, one 4 minutes behind and one 4 minutes ahead (packages/testkit/src/skewed-clock.mjs moves
// their Date), a real worker and Postgres. The times they report are read on the control plane's clock.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import {
  ROOT,
  makeWorld,
  spawnAgents,
  spawnWorker,
  startGateway,
  stopAgentSets,
  submit,
  waitFor,
  type AgentSet,
  type Proc,
  type World,
} from "./harness";

const SKEW_MS = 4 * 60_000;

describe("agents whose clocks are off", () => {
  let db: TestDatabase;
  let world: World;
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  let worker: Proc;
  const agents: AgentSet[] = [];

  /** An agent process for `node` whose clock is `skewMs` off (its fence watch's too: they share the flags). */
  async function skewedAgent(node: string, skewMs: number): Promise<AgentSet> {
    process.env.NODE_OPTIONS = `--import=${join(ROOT, "packages/testkit/src/skewed-clock.mjs")}`;
    process.env.CLOCK_SKEW_MS = String(skewMs);
    try {
      return await spawnAgents(db.prisma, world, gateway.url, [node]);
    } finally {
      delete process.env.NODE_OPTIONS;
      delete process.env.CLOCK_SKEW_MS;
    }
  }

  beforeAll(async () => {
    db = await createTestDatabase("agent-clock");
    world = await makeWorld(db.prisma, { nodes: 2 });
    gateway = await startGateway(db.prisma);
    agents.push(await skewedAgent("c1-0", -SKEW_MS), await skewedAgent("c1-1", SKEW_MS));
    worker = spawnWorker(db.url);
    await worker.waitForOutput("is now the leader");
    await waitFor(
      "both agents to report",
      async () => (await db.prisma.node.count({ where: { lastHeartbeatAt: { not: null } } })) === 2,
    );
  }, 60_000);

  afterAll(async () => {
    await worker?.stop();
    await stopAgentSets(agents);
    await gateway?.close();
    await db?.drop();
  });

  it("a run on a host 4 minutes behind or ahead is kept as long as it really ran (behind, it was kept as lasting nothing)", async () => {
    const ids = [await submit(db.prisma, world, { command: "sleep 3" }), await submit(db.prisma, world, { command: "sleep 3" })];
    await waitFor(
      "both jobs to complete",
      async () => (await db.prisma.job.count({ where: { id: { in: ids }, state: "COMPLETED" } })) === 2,
      45_000,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n${agents.map((a) => a.proc.output.slice(-1500)).join("\n---\n")}`);
    });
    const runs = await db.prisma.runSegment.findMany({
      where: { jobId: { in: ids } },
      include: { placements: { include: { node: true } } },
    });
    expect(runs.map((r) => r.placements[0]!.node.name).sort()).toEqual(["c1-0", "c1-1"]);
    for (const r of runs) {
      const seconds = (r.endedAt!.getTime() - r.startedAt.getTime()) / 1000;
      expect({ node: r.placements[0]!.node.name, long: seconds >= 2.5 && seconds < 20 }).toEqual({
        node: r.placements[0]!.node.name,
        long: true,
      });
    }
  }, 60_000);
});
