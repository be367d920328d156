import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import { submitJob } from "@tranche/domain";
import {
  ROOT,
  cleanupAgentDir,
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

const asRoot = process.getuid?.() === 0;

// Job isolation (issue 15): a job runs as its user's own uid and cannot read the agent's credential,
// its state, the platform's secrets or another user's job folder. Switching users needs root (CI
// runs the suite as root); elsewhere the agent must refuse the option rather than pretend.
describe("job isolation on a real agent", () => {
  let db: TestDatabase;
  let world: World;
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  let worker: Proc | undefined;
  let agents: AgentSet | undefined;

  beforeAll(async () => {
    db = await createTestDatabase("isolation");
    world = await makeWorld(db.prisma, { nodes: 1 });
    gateway = await startGateway(db.prisma);
  });
  afterAll(async () => {
    await worker?.stop();
    await agents?.proc.stop();
    if (agents) cleanupAgentDir(agents);
    await gateway?.close();
    await db?.drop();
  });

  it("a job runs as its user's uid and gets 'Permission denied' for the agent's credential and state, the auth secret, the database password and another user's job folder (not root: the agent refuses the option)", async () => {
    if (!asRoot) {
      agents = await spawnAgents(db.prisma, world, gateway.url, ["c1-0"], undefined, ["--job-uid-range", "20000-29999"]);
      await agents.proc.wait();
      expect(agents.proc.exit?.code).toBe(2);
      expect(agents.proc.output).toContain("--job-uid-range needs an agent running as root");
      return;
    }
    // The platform's secrets as `npm start` keeps them (mode 600 under .data), made here if this checkout has none yet.
    const authSecret = join(ROOT, ".data", "auth-secret");
    if (!existsSync(authSecret)) {
      mkdirSync(join(ROOT, ".data"), { recursive: true });
      writeFileSync(authSecret, randomBytes(32).toString("base64url"), { mode: 0o600 });
    }
    chmodSync(authSecret, 0o600);
    const pgPassword = join(ROOT, ".data", "test-postgres.password");

    agents = await spawnAgents(db.prisma, world, gateway.url, ["c1-0"], undefined, ["--job-uid-range", "20000-29999"]);
    const nodeDir = join(agents.dir, "c1-0");
    await waitFor("the agent to enroll", async () => existsSync(join(nodeDir, "credential")));
    worker = spawnWorker(db.url);

    const bob = await db.prisma.user.create({ data: { email: "bob@test.example", name: "Bob", role: "RESEARCHER" } });
    await db.prisma.budgetMember.create({ data: { budgetId: world.budgets["lab/a"]!, userId: bob.id } });
    const bobJob = await submitJob(db.prisma, { id: bob.id, email: bob.email, name: bob.name, role: "RESEARCHER" }, {
      cluster: "c1",
      budget: "lab/a",
      gpus: 4,
      minRuntime: 600,
      maxRuntime: null,
      resumable: false,
      priority: 0,
      env: {},
      gracePeriod: null,
      name: "bob",
      command: 'echo "bob-private" > "$TRANCHE_JOB_DIR/secret"; echo "bob is $(id -u)"; sleep 60',
    } as never);
    const bobSeg = await waitFor("bob's job to run", async () => {
      const logs = await db.prisma.jobLogChunk.findMany({ where: { jobId: bobJob.id } });
      return logs.some((l) => l.text.includes("bob is")) ? db.prisma.runSegment.findFirst({ where: { jobId: bobJob.id } }) : null;
    });
    const bobWork = join(nodeDir, "jobs", String(bobSeg.id), "work");
    expect(readFileSync(join(bobWork, "secret"), "utf8")).toBe("bob-private\n");
    expect(statSync(bobWork).mode & 0o777).toBe(0o700);

    const targets = [
      join(nodeDir, "credential"),
      join(nodeDir, "state.json"),
      join(agents.dir, "job-uids.json"),
      authSecret,
      ...(existsSync(pgPassword) ? [pgPassword] : []),
      join(bobWork, "secret"),
      join(nodeDir, "jobs", String(bobSeg.id), "stdout.log"),
    ];
    const probe = await submit(db.prisma, world, {
      gpus: 4,
      command: [
        'echo "probe is $(id -u) $(id -g)"',
        ...targets.map((t) => `cat '${t}' 2>&1`),
        `ls '${bobWork}' 2>&1`,
        `ls '${nodeDir}' 2>&1`,
        "echo probe done",
      ].join("; "),
    });
    const out = await waitFor("the probe to finish", async () => {
      const j = await db.prisma.job.findUniqueOrThrow({ where: { id: probe } });
      if (j.state !== "COMPLETED" && j.state !== "FAILED") return null;
      const logs = await db.prisma.jobLogChunk.findMany({ where: { jobId: probe }, orderBy: { id: "asc" } });
      const text = logs.map((l) => l.text).join("");
      return text.includes("probe done") ? text : null;
    });
    const [, bobUid] = /bob is (\d+)/.exec(
      (await db.prisma.jobLogChunk.findMany({ where: { jobId: bobJob.id } })).map((l) => l.text).join(""),
    )!;
    const [, probeUid, probeGid] = /probe is (\d+) (\d+)/.exec(out)!;
    expect(Number(probeUid)).toBeGreaterThanOrEqual(20000);
    expect(Number(probeUid)).toBeLessThanOrEqual(29999);
    expect(Number(probeGid)).toBe(Number(probeUid));
    expect(Number(bobUid)).toBeGreaterThanOrEqual(20000);
    expect(probeUid).not.toBe(bobUid);
    for (const t of targets) expect(out).toContain(`cat: ${t}: Permission denied`);
    expect(out).toContain(`ls: cannot open directory '${bobWork}': Permission denied`);
    expect(out).toContain(`ls: cannot open directory '${nodeDir}': Permission denied`);
    // Nothing secret reached the probe's log.
    expect(out).not.toContain(readFileSync(join(nodeDir, "credential"), "utf8").trim());
    expect(out).not.toContain(readFileSync(authSecret, "utf8").trim());
    expect(out).not.toContain("bob-private");
  }, 90_000);
});
