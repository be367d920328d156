// Retiring a node: `tranche node retire`, the REST route and what a retired node is to the scheduler's
// snapshot, the lists, its agent and a later enrollment. A real CLI process, REST handler and Postgres.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { submitJobInput } from "@tranche/contracts";
import { submitJob } from "@tranche/domain";
import { enrollAgent, handleHeartbeat, issueEnrollmentTokens, loadCycleInput } from "@tranche/domain/runtime";
import { goodJob } from "./fixtures";
import { startCliStack, type CliStack } from "./cli-stack";

type Who = "omar" | "ada";
let stack: CliStack<Who>;

beforeAll(async () => {
  stack = await startCliStack("api_node_retire", { users: ["omar", "ada"], tmpPrefix: "tranche-node-retire-" });
});
afterAll(() => stack?.stop());

const cli = (who: Who, args: string[]) => stack.cli(args, who);
const gpus = (n: number) =>
  Array.from({ length: n }, (_, index) => ({
    index,
    uuid: `GPU-${index}`,
    name: "B200",
    memoryMiB: 1000,
    utilizationPercent: 0,
  }));

/** A job of Ada's on these GPUs of a node: running (open segment), or ended there earlier. */
async function jobOn(nodeName: string, gpuIndexes: number[], ended = false): Promise<number> {
  const { prisma } = stack.w.db;
  const node = await prisma.node.findUniqueOrThrow({ where: { name: nodeName }, include: { cluster: true } });
  const job = await submitJob(
    prisma,
    stack.w.users.ada,
    submitJobInput.parse({ ...goodJob, cluster: node.cluster.name, gpus: gpuIndexes.length, name: "train" }),
  );
  const at = new Date(Date.now() - 60_000);
  const row = await prisma.job.update({
    where: { id: job.id },
    data: ended ? { state: "COMPLETED", startedAt: at, finishedAt: new Date() } : { state: "RUNNING", startedAt: at },
  });
  await prisma.runSegment.create({
    data: {
      jobId: job.id,
      clusterId: node.clusterId,
      budgetId: row.budgetId,
      gpus: gpuIndexes.length,
      startedAt: at,
      ...(ended ? { endedAt: new Date(), endReason: "FINISH" as const } : {}),
      charged: true,
      placements: { create: [{ nodeId: node.id, gpuIndexes }] },
    },
  });
  return job.id;
}

describe("tranche node retire", () => {
  it("refuses a node that holds jobs, naming them and saying to drain it first; nothing changes", async () => {
    const id = await jobOn("b200-3", [0, 1]);
    const r = await cli("omar", ["node", "retire", "b200-3"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      `Cannot retire b200-3: job ${id} runs there. Drain it first (tranche node drain b200-3), and retire it once it is empty.`,
    );
    const node = await stack.w.db.prisma.node.findUniqueOrThrow({ where: { name: "b200-3" } });
    expect(node.state).toBe("READY");
  });

  it("retires an empty node: gone from the lists, the snapshot and capacity, kept with its history and jobs", async () => {
    const { prisma } = stack.w.db;
    const oldJob = await jobOn("b200-4", [0], true);
    const node = await prisma.node.update({
      where: { name: "b200-4" },
      data: { state: "DOWN", stateReason: "missed heartbeats", agentCredentialHash: "r".repeat(64) },
    });
    const before = await loadCycleInput(prisma, node.clusterId, Math.floor(Date.now() / 1000));
    const gpusOf = async () => (await stack.w.caller("ada").cluster.list()).find((c) => c.name === "b200")!.gpuCount;
    const gpusBefore = await gpusOf();

    const r = await cli("omar", ["node", "retire", "b200-4", "--reason", "host re-enrolled as b200-40"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(
      "Retired b200-4: its agent is refused, and it is left out of scheduling, capacity and the node lists (`tranche nodes --all` shows it). Its history and its jobs' placements are kept. A token issued for b200-4 brings it back.\n",
    );

    // The scheduler's snapshot no longer holds it, so no rule needs to know of retired nodes.
    const after = await loadCycleInput(prisma, node.clusterId, Math.floor(Date.now() / 1000));
    expect(before.snapshot.nodes.some((n) => n.id === node.id)).toBe(true);
    expect(after.snapshot.nodes.some((n) => n.id === node.id)).toBe(false);
    expect(after.snapshot.nodes).toHaveLength(before.snapshot.nodes.length - 1);
    expect(await gpusOf()).toBe(gpusBefore - 8);

    // The Nodes page (tRPC node.list) leaves it out unless asked, as GET /nodes does without retired=1.
    const onPage = async (retired?: boolean) =>
      (await stack.w.caller("ada").node.list({ cluster: "b200", retired })).map((n) => [n.name, n.state]);
    expect(await onPage()).not.toContainEqual(["b200-4", "RETIRED"]);
    expect(await onPage(true)).toContainEqual(["b200-4", "RETIRED"]);
    const listed = (await cli("ada", ["nodes", "b200"])).stdout;
    expect(listed).not.toMatch(/^b200-4\s/m);
    expect((await cli("ada", ["nodes", "b200", "--all"])).stdout).toMatch(/^b200-4\s+b200\s+retired\s+0 of 8\s/m);
    const history = (await cli("ada", ["node", "show", "b200-4"])).stdout.trimEnd().split("\n");
    expect(history[0]).toMatch(/retired/);
    expect(history.at(-1)).toMatch(/^ {2}\d+ s ago {2}down -> retired {2}host re-enrolled as b200-40 \(by Omar Operator\)$/);
    // Its jobs' placements stay: deleting the row would have erased them (they cascade).
    expect(await prisma.segmentPlacement.count({ where: { nodeId: node.id, segment: { jobId: oldJob } } })).toBe(1);
    const audit = await prisma.auditLog.findFirstOrThrow({ where: { action: "node.retire", targetId: node.id } });
    expect(audit.details).toMatchObject({ target: "b200-4", from: "DOWN", to: "RETIRED", reason: "host re-enrolled as b200-40" });

    // Twice, or a node that does not exist: clear errors, nothing changed.
    const again = await cli("omar", ["node", "retire", "b200-4"]);
    expect(again.stderr).toContain("b200-4 is already retired; nothing was changed");
    expect((await cli("omar", ["node", "retire", "b200-99"])).stderr).toContain("There is no node 'b200-99'");
    expect(await prisma.nodeEvent.count({ where: { nodeId: node.id, toState: "RETIRED" } })).toBe(1);
    // Researchers may not.
    expect((await cli("ada", ["node", "retire", "b200-5"])).code).not.toBe(0);
    expect((await prisma.node.findUniqueOrThrow({ where: { name: "b200-5" } })).state).toBe("READY");
  });

  it("refuses a retired node's agent, saying it is retired, and a token issued for its name brings it back", async () => {
    const { prisma } = stack.w.db;
    const node = await prisma.node.findUniqueOrThrow({ where: { name: "b200-4" } });
    expect(node.state).toBe("RETIRED");
    // The stored hash stands for a credential whose text the test does not know: give it one it does.
    const { hashSecret } = await import("@tranche/domain/runtime");
    await prisma.node.update({ where: { id: node.id }, data: { agentCredentialHash: hashSecret("old-credential-of-b200-4") } });
    const beat = await handleHeartbeat(prisma, "old-credential-of-b200-4", {});
    expect(beat.status).toBe(401);
    expect(JSON.stringify(beat.body)).toContain("Node b200-4 is retired");

    const [unbound, bound] = await issueEnrollmentTokens(prisma, node.clusterId, [null, "b200-4"]);
    const req = { nodeName: "b200-4", agentVersion: "2.1.0", gpus: gpus(4) };
    const refused = await enrollAgent(prisma, { ...req, token: unbound!.token });
    expect(refused.status).toBe(409);
    expect(JSON.stringify(refused.body)).toContain("Node b200-4 is retired and this enrollment token was not issued for it");
    const back = await enrollAgent(prisma, { ...req, token: bound!.token });
    expect(back.status).toBe(200);
    const now = await prisma.node.findUniqueOrThrow({ where: { id: node.id } });
    expect(now).toMatchObject({ state: "DOWN", gpuCount: 4, lastHeartbeatAt: null });
    const history = (await cli("ada", ["node", "show", "b200-4"])).stdout;
    expect(history).toMatch(/retired -> down {2}Enrolled again after its retirement \(agent 2\.1\.0\)/);
    expect((await cli("ada", ["nodes", "b200"])).stdout).toMatch(/^b200-4\s+b200\s+down\s+0 of 4\s/m);
  });
});
