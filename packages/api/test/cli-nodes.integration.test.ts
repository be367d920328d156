// `tranche nodes` and `tranche node ...`: the real CLI process against the real REST handler (served
// over HTTP from this test) and a real Postgres, as an operator keeping nodes healthy uses them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { submitJobInput } from "@tranche/contracts";
import { submitJob } from "@tranche/domain";
import { renderMetrics } from "@tranche/domain/runtime";
import { goodJob } from "./fixtures";
import { startCliStack, type CliStack } from "./cli-stack";

type Who = "omar" | "ada";
let stack: CliStack<Who>;

beforeAll(async () => {
  stack = await startCliStack("api_cli_nodes", { users: ["omar", "ada"], tmpPrefix: "tranche-cli-nodes-" });
});
afterAll(() => stack?.stop());

const cli = (who: Who, args: string[]) => stack.cli(args, who);

/** A job of Ada's running on these GPUs of a node, as its agent would have reported it (protected for an hour). */
async function runningOn(nodeName: string, gpuIndexes: number[]): Promise<number> {
  const { prisma } = stack.w.db;
  const node = await prisma.node.findUniqueOrThrow({ where: { name: nodeName }, include: { cluster: true } });
  const job = await submitJob(
    prisma,
    stack.w.users.ada,
    submitJobInput.parse({ ...goodJob, cluster: node.cluster.name, gpus: gpuIndexes.length, name: "train" }),
  );
  const at = new Date();
  const row = await prisma.job.update({ where: { id: job.id }, data: { state: "RUNNING", startedAt: at } });
  await prisma.runSegment.create({
    data: {
      jobId: job.id,
      clusterId: node.clusterId,
      budgetId: row.budgetId,
      gpus: gpuIndexes.length,
      startedAt: at,
      protectedUntil: new Date(at.getTime() + 3600_000),
      charged: true,
      placements: { create: [{ nodeId: node.id, gpuIndexes }] },
    },
  });
  return job.id;
}

describe("tranche nodes", () => {
  it("lists a cluster's nodes with their state, GPUs in use and why", async () => {
    await stack.w.db.prisma.node.update({
      where: { name: "b200-2" },
      data: { state: "REPAIR", stateReason: "GPU 3 has XID 79" },
    });
    const r = await cli("ada", ["nodes", "b200"]);
    expect(r.stderr).toBe("");
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^NODE\s+CLUSTER\s+STATE\s+GPUS IN USE\s+UTILIZATION\s+LAST HEARD\s+WHY$/);
    expect(lines).toHaveLength(1 + 11);
    expect(lines[1]).toMatch(/^b200-0\s+b200\s+ready\s+0 of 8\s+-\s+never$/);
    expect(lines[3]).toMatch(/^b200-2\s+b200\s+in repair\s+0 of 8\s+-\s+never\s+GPU 3 has XID 79$/);
    const asJson = JSON.parse((await cli("ada", ["--json", "nodes", "b200"])).stdout) as { nodes: { name: string }[] };
    expect(asJson.nodes).toHaveLength(11);
    const unknown = await cli("ada", ["nodes", "a100"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe("tranche: There is no cluster 'a100'\n");
  });
});

describe("tranche nodes --state", () => {
  it("lists only the nodes in the states asked for, as sinfo -t, and names the words it takes", async () => {
    // An operator's morning question, "which nodes are out?", had no answer but reading every row.
    await stack.w.db.prisma.node.update({ where: { name: "b200-9" }, data: { state: "DOWN", stateReason: "no heartbeat" } });
    const r = await cli("omar", ["nodes", "b200", "--state", "down,Repair"]);
    expect(r.stderr).toBe("");
    const names = r.stdout
      .trimEnd()
      .split("\n")
      .slice(1)
      .map((l) => l.split(/\s+/)[0]);
    expect(names).toEqual(expect.arrayContaining(["b200-9"]));
    const states = (await stack.w.db.prisma.node.findMany({ where: { name: { in: names as string[] } } })).map((n) => n.state);
    expect(new Set(states)).toEqual(new Set(states.filter((s) => s === "DOWN" || s === "REPAIR")));
    const typo = await cli("omar", ["nodes", "--state", "drainin"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe(
      "tranche: --state takes ready, cordoned, draining, repair, down, retired (comma-separated), got 'drainin'\n",
    );
  });
});

describe("tranche node", () => {
  it("shows what an unhealthy node's agent reported, beside its health", async () => {
    // Drained by hand before it turned unhealthy, its reason is the operator's: the agent's words were
    // stored but shown nowhere, so finding them meant logging into the host.
    await stack.w.db.prisma.node.update({
      where: { name: "b200-8" },
      data: {
        state: "DRAINING",
        drainIsManual: true,
        stateReason: "fan failure",
        health: "UNHEALTHY",
        healthDetails: { errors: ["GPU 3 has XID 79", "nvidia-smi failed: GPU is lost"], driverVersion: null },
      },
    });
    const lines = (await cli("ada", ["node", "show", "b200-8"])).stdout.split("\n");
    expect(lines[2]).toMatch(/^ {2}unhealthy \(GPU 3 has XID 79; nvidia-smi failed: GPU is lost\); last heard never/);
  });

  it("drains a node with a reason, shows it with its jobs and history, and returns it", async () => {
    // Two running jobs on b200-5, as its agent would have reported them: the drain waits for them.
    const a = await runningOn("b200-5", [0, 1]);
    const b = await runningOn("b200-5", [2]);
    const refused = await cli("ada", ["node", "drain", "b200-5", "--reason", "fan failure"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe("tranche: Only operators may drain nodes; you are signed in as a researcher.\n");

    const drain = await cli("omar", ["node", "drain", "b200-5", "--reason", "fan failure"]);
    expect(drain.stderr).toBe("");
    // It says when the node will be empty: the last protection on it ends in an hour (1 h, or 59 or 58 min on a slow machine).
    expect(drain.stdout).toMatch(
      /^b200-5 is draining: nothing new starts there, and the 2 jobs on it leave as their contracts allow; then it goes to repair \(the last protection on it ends in (1 h|5[89] min)\)\.\n$/,
    );

    const show = await cli("ada", ["node", "show", "b200-5"]);
    expect(show.stderr).toBe("");
    const lines = show.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(
      /^b200-5 \(cluster b200\): draining: no new work, its jobs leave as their contracts allow, for \d+ s$/,
    );
    expect(lines[1]).toBe("  why: fan failure (an operator's drain)");
    expect(lines[3]).toBe("GPUs (3 of 8 in use):");
    // Protected for an hour from a moment ago: "1 h" more, or 59 or 58 min on a slow machine.
    // A run of GPUs held alike is one line.
    expect(lines[4]).toMatch(
      new RegExp(
        `^ {2}0-1 {2}job #${a} train \\(lab/language/pretraining, Ada Researcher\\), protected for (1 h|5[89] min) more$`,
      ),
    );
    expect(lines[5]).toMatch(new RegExp(`^ {2}2 {2}job #${b} train `));
    expect(lines[6]).toBe("  3-7  free");
    expect(lines.at(-1)).toMatch(/^ {2}\d+ s ago {2}ready -> draining {2}fan failure \(by Omar Operator\)$/);

    // Refused transitions, unknown nodes and `repaired` are the REST routes' (rest-nodes.integration.test.ts);
    // here, what each command says. Every CLI process costs about a second of the suite.
    expect((await cli("omar", ["node", "uncordon", "b200-5"])).stdout).toBe("b200-5 is ready: new work may start there.\n");
    expect((await cli("omar", ["node", "cordon", "b200-5"])).stdout).toBe(
      "b200-5 is cordoned: nothing new starts there; the 2 jobs on it keep running.\n",
    );
    // Without --reason there is none: the history says so, and who did it beside it.
    const history = (await cli("ada", ["node", "show", "b200-5"])).stdout.trimEnd().split("\n");
    expect(history.find((l) => l.includes("ready -> cordoned"))).toMatch(
      /ready -> cordoned {2}no reason given \(by Omar Operator\)$/,
    );

    // /metrics: the GPU kinds add up to the cluster; the cordoned node's 5 free GPUs are held back, not idle.
    const metrics = (await renderMetrics(stack.w.db.prisma)).text;
    const kinds = new Map(
      [...metrics.matchAll(/^tranche_gpus\{cluster="b200",kind="(\w+)"\} (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]),
    );
    const nodes = await stack.w.db.prisma.node.findMany({ where: { cluster: { name: "b200" } } });
    expect([...kinds.values()].reduce((a, b) => a + b, 0)).toBe(nodes.reduce((a, n) => a + n.gpuCount, 0));
    expect(kinds.get("held_back")).toBe(5);
  });

  it("revoking a ready node's credential cordons it, says so in its history and names the jobs its agent will stop", async () => {
    // Left READY, the scheduler kept starting work on a node no agent could report for: lost with it.
    await stack.w.db.prisma.node.update({ where: { name: "b200-6" }, data: { agentCredentialHash: "y".repeat(64) } });
    await runningOn("b200-6", [0]);
    const r = await cli("omar", ["admin", "revoke-node", "b200-6"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(
      "Revoked the credential of b200-6; it is cordoned, so nothing new starts there. Its agent is refused from its next heartbeat and stops the job running there at its heartbeat timeout: resumable jobs are requeued, the others end lost. It rejoins only with a new enrollment token.\n",
    );
    const node = await stack.w.db.prisma.node.findUniqueOrThrow({ where: { name: "b200-6" } });
    expect(node).toMatchObject({ state: "CORDONED", agentCredentialHash: null });
    const history = (await cli("ada", ["node", "show", "b200-6"])).stdout.trimEnd().split("\n");
    expect(history.at(-1)).toMatch(
      /^ {2}\d+ s ago {2}ready -> cordoned {2}Its credential was revoked: nothing new starts here, .* \(by Omar Operator\)$/,
    );
  });

  it("revoking a credential with --reason keeps the reason in the node's history and the audit log", async () => {
    // Every other node action recorded why; a revocation did not, and a node that was not READY got no line.
    const { prisma } = stack.w.db;
    await prisma.node.update({ where: { name: "b200-7" }, data: { state: "DOWN", agentCredentialHash: "z".repeat(64) } });
    const r = await cli("omar", ["admin", "revoke-node", "b200-7", "--reason", "host reinstalled"]);
    expect(r.stderr).toBe("");
    const history = (await cli("ada", ["node", "show", "b200-7"])).stdout.trimEnd().split("\n");
    expect(history.at(-1)).toMatch(
      /^ {2}\d+ s ago {2}down {2}Its credential was revoked \(host reinstalled\): its agent is refused until it enrolls again with a new token\. \(by Omar Operator\)$/,
    );
    const node = await prisma.node.findUniqueOrThrow({ where: { name: "b200-7" } });
    const audit = await prisma.auditLog.findFirstOrThrow({ where: { action: "node.revoke-credential", targetId: node.id } });
    expect(audit.details).toMatchObject({ target: "b200-7", reason: "host reinstalled" });
  });
});
