import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, connect, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import {
  stopAgentSets,
  makeWorld,
  spawnAgents,
  spawnWorker,
  startGateway,
  submit,
  waitFor,
  type AgentSet,
  type Proc,
  type World,
} from "./harness";

/** A TCP relay to the gateway that the test can cut: a network partition between one agent and the control plane. */
async function relay(target: string): Promise<{ url: string; cut: () => void }> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const server: Server = createServer((inbound) => {
    const outbound = connect(Number(port), hostname);
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => s.destroy());
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  return {
    url,
    cut: () => {
      server.close();
      for (const s of sockets) s.destroy();
    },
  };
}

// R9 fencing (issue 15, item 4): an agent cut off from the control plane stops its jobs itself, and the
// control plane requeues them only after heartbeat timeout + fence grace — the two copies never overlap.
describe("fencing", () => {
  let db: TestDatabase;
  let world: World;
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  const procs: Proc[] = [];
  const agentSets: AgentSet[] = [];
  const scratch = mkdtempSync(join(tmpdir(), "tranche-fence-"));
  const policy = '{"heartbeatTimeout":3,"fenceGrace":3}';

  afterEach(async () => {
    for (const p of procs.splice(0)) await p.stop();
    await stopAgentSets(agentSets.splice(0));
    await gateway?.close();
    await db?.drop();
    delete process.env.TRANCHE_POLICY;
    rmSync(scratch, { recursive: true, force: true });
  });

  /**
   * c1-0 (reached through `link` when given: a relay to the gateway) runs a resumable job that writes its
   * node and the time every 50 ms; c1-1 is ready to take it.
   */
  async function jobOnC10(
    name: string,
    link?: (gateway: string) => Promise<string>,
  ): Promise<{ a0: AgentSet; id: number; trace: string }> {
    process.env.TRANCHE_POLICY = policy; // the gateway (the web app's handlers) tells agents the same fence
    db = await createTestDatabase(name);
    world = await makeWorld(db.prisma, { nodes: 2 });
    gateway = await startGateway(db.prisma);
    const a0 = await spawnAgents(db.prisma, world, link ? await link(gateway.url) : gateway.url, ["c1-0"]);
    agentSets.push(a0);
    await waitFor(
      "c1-0 to heartbeat",
      async () => (await db.prisma.node.findUniqueOrThrow({ where: { name: "c1-0" } })).lastHeartbeatAt,
    );
    await db.prisma.node.update({ where: { name: "c1-1" }, data: { state: "CORDONED" } });
    procs.push(spawnWorker(db.url, { TRANCHE_POLICY: policy }));
    mkdirSync(scratch, { recursive: true }); // each test's afterEach removes it
    const trace = join(scratch, `trace-${name}`);
    const id = await submit(db.prisma, world, {
      gpus: 8,
      resumable: true,
      command: `while :; do echo "$TRANCHE_NODE_NAME $(date +%s%3N)" >> ${trace}; sleep 0.05; done`,
    });
    await waitFor("the job to run on c1-0", async () => traced(trace, "c1-0")).catch((e: Error) => {
      throw new Error(`${e.message}\n${a0.proc.output.slice(-3000)}`);
    });
    const a1 = await spawnAgents(db.prisma, world, gateway.url, ["c1-1"]);
    agentSets.push(a1);
    await waitFor(
      "c1-1 to heartbeat",
      async () => (await db.prisma.node.findUniqueOrThrow({ where: { name: "c1-1" } })).lastHeartbeatAt,
    );
    await db.prisma.node.update({ where: { name: "c1-1" }, data: { state: "READY" } });
    return { a0, id, trace };
  }

  function traced(trace: string, node: string): boolean {
    try {
      return readFileSync(trace, "utf8").includes(`${node} `);
    } catch {
      return false;
    }
  }

  /** The job runs again on c1-1, its c1-0 copy never wrote after that, and c1-0 is DOWN with the job LOST once. */
  async function expectNoOverlap(id: number, trace: string, since: number, what: string): Promise<void> {
    await waitFor("the job to run again on c1-1", async () => traced(trace, "c1-1"), 30_000);
    await new Promise((r) => setTimeout(r, 500));
    const lines = readFileSync(trace, "utf8")
      .trim()
      .split("\n")
      .map((l) => l.split(" "))
      .map(([node, ms]) => ({ node: node!, ms: Number(ms) }));
    const lastOld = Math.max(...lines.filter((l) => l.node === "c1-0").map((l) => l.ms));
    const firstNew = Math.min(...lines.filter((l) => l.node === "c1-1").map((l) => l.ms));
    console.log(
      `fencing (${what}): old copy's last write ${((lastOld - since) / 1000).toFixed(1)} s after, new copy's first ${((firstNew - since) / 1000).toFixed(1)} s after (gap ${((firstNew - lastOld) / 1000).toFixed(1)} s)`,
    );
    expect(lastOld).toBeLessThan(firstNew);
    // The c1-0 copy never wrote again after the c1-1 copy started.
    expect(lines.findIndex((l) => l.node === "c1-1")).toBeGreaterThan(lines.map((l) => l.node).lastIndexOf("c1-0"));

    const node = await db.prisma.node.findUniqueOrThrow({ where: { name: "c1-0" } });
    expect(node.state).toBe("DOWN");
    expect(node.stateReason).toMatch(/missed heartbeats for \d+ (s|min) \(timeout 3 s plus 3 s of fence grace\): it is down/);
    const events = await db.prisma.jobEvent.findMany({ where: { jobId: id }, orderBy: { id: "asc" } });
    expect(events.map((e) => e.kind)).toEqual(["SUBMITTED", "STARTED", "LOST", "STARTED"]);
    expect(await db.prisma.runSegment.count({ where: { jobId: id, endedAt: null } })).toBe(1);
  }

  it("an agent cut off from the control plane stops its job before the job is requeued elsewhere: the two runs never overlap", async () => {
    let cut = () => {};
    const { a0, id, trace } = await jobOnC10("fencing", async (url) => {
      const link = await relay(url);
      cut = link.cut;
      return link.url;
    });
    const cutAt = Date.now();
    cut();
    await a0.proc.waitForOutput(/no answer from the control plane for \d+s \(heartbeat timeout 3s\): stopping 1 job/, 15_000);
    await expectNoOverlap(id, trace, cutAt, "the link cut");
  }, 90_000);

  it("an agent that is killed (nothing left to fence its job) still never lets the job run twice: its fence watch stops the job before it is requeued", async () => {
    const { a0, id, trace } = await jobOnC10("fence-watch");
    const killedAt = Date.now();
    await a0.proc.stop("SIGKILL");
    await expectNoOverlap(id, trace, killedAt, "the agent killed");
    const log = readFileSync(join(a0.dir, "c1-0", "fence-watch.log"), "utf8");
    expect(log).toMatch(
      /stopping process group \d+ .*, left running by its agent \(pid \d+\), which has stopped, and no answer from the control plane for \d+ s/,
    );
  }, 90_000);

  it("an agent paused (SIGSTOP) past the heartbeat timeout cannot fence its job, so its fence watch does; after SIGCONT the agent lives on and the run stays lost, not failed", async () => {
    const { a0, id, trace } = await jobOnC10("fence-paused");
    const pausedAt = Date.now();
    process.kill(a0.proc.pid, "SIGSTOP");
    try {
      await expectNoOverlap(id, trace, pausedAt, "the agent paused");
    } finally {
      process.kill(a0.proc.pid, "SIGCONT");
    }
    expect(readFileSync(join(a0.dir, "c1-0", "fence-watch.log"), "utf8")).toMatch(
      /stopping process group \d+ .*, left running by its agent \(pid \d+\), which is paused, and no answer from the control plane for \d+ s/,
    );
    // Resumed, the agent heartbeats again and its node comes back; the job stays on c1-1, ran once at a time.
    await waitFor(
      "c1-0 to be READY again",
      async () => (await db.prisma.node.findUniqueOrThrow({ where: { name: "c1-0" } })).state === "READY",
      30_000,
    );
    expect(a0.proc.exit).toBeNull();
    const events = await db.prisma.jobEvent.findMany({ where: { jobId: id }, orderBy: { id: "asc" } });
    expect(events.map((e) => e.kind)).toEqual(["SUBMITTED", "STARTED", "LOST", "STARTED"]);
    const job = await db.prisma.job.findUniqueOrThrow({ where: { id } });
    expect(job.state).toBe("RUNNING");
    expect(await db.prisma.runSegment.count({ where: { jobId: id, endedAt: null } })).toBe(1);
  }, 90_000);
});
