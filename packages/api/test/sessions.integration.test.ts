// Interactive sessions end to end below the browser: REST (the handler the web app serves), a real worker
// process, two real agent processes (one per node, separate state folders, one shared checkpoint root) and
// a real Postgres. A session writes a file through the owner-only proxy (on the sessions host, with an API
// token), is preempted once its protection is over, comes back on the other node, and the file is there.
// Bad input is refused and stores nothing.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import { createApiToken, submitJob, type Actor } from "@tranche/domain";
import { issueEnrollmentTokens, serveAgentProtocol } from "@tranche/domain/runtime";
import { callRest, type World } from "./fixtures";

const ROOT = resolve(import.meta.dirname, "../../..");

const processes: ChildProcess[] = [];
function run(script: string, args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, script), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.resume();
  child.stderr!.resume();
  processes.push(child);
  return child;
}

async function waitFor<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 45_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe("interactive sessions", () => {
  let db: TestDatabase;
  let w: World;
  const users: Record<"ada" | "bob" | "eve" | "admin", Actor> = {} as never;
  const tokens: Record<keyof typeof users, string> = {} as never;
  let gateway: Awaited<ReturnType<typeof serveAgentProtocol>>;
  const stateDir = mkdtempSync(join(tmpdir(), "tranche-session-agents-"));
  const root = mkdtempSync(join(tmpdir(), "tranche-session-root-"));

  beforeAll(async () => {
    db = await createTestDatabase("sessions");
    w = { db } as World;
    const cluster = await db.prisma.cluster.create({ data: { name: "c1", gpuType: "FAKE" } });
    // c1-1 starts cordoned: the session starts on c1-0 and can only come back on c1-1 once it is opened.
    await db.prisma.node.create({ data: { clusterId: cluster.id, name: "c1-0", gpuCount: 8, state: "READY" } });
    await db.prisma.node.create({ data: { clusterId: cluster.id, name: "c1-1", gpuCount: 8, state: "CORDONED" } });
    const lab = await db.prisma.budgetTreeNode.create({ data: { name: "lab", path: "lab" } });
    const a = await db.prisma.budgetTreeNode.create({ data: { name: "a", path: "lab/a", parentId: lab.id } });
    const b = await db.prisma.budgetTreeNode.create({ data: { name: "b", path: "lab/b", parentId: lab.id } });
    const at = new Date(Date.now() - 3600_000);
    for (const [id, ppm] of [
      [lab.id, 1_000_000],
      [a.id, 600_000],
      [b.id, 400_000],
    ] as const) {
      await db.prisma.allocation.create({ data: { treeNodeId: id, clusterId: cluster.id, ppm } });
      await db.prisma.allocationChange.create({ data: { treeNodeId: id, clusterId: cluster.id, fromPpm: 0, toPpm: ppm, at } });
    }
    const person = async (key: keyof typeof users, role: Actor["role"], budgetId: string | null) => {
      const u = await db.prisma.user.create({ data: { email: `${key}@test.example`, name: key, role } });
      if (budgetId) await db.prisma.budgetMember.create({ data: { budgetId, userId: u.id } });
      users[key] = { id: u.id, email: u.email, name: u.name, role };
      tokens[key] = (await createApiToken(db.prisma, users[key], { name: "test" })).token;
    };
    await person("ada", "RESEARCHER", b.id); // owns the session
    await person("bob", "RESEARCHER", a.id); // his job preempts it
    await person("eve", "RESEARCHER", a.id); // may not reach it, nor charge lab/b
    await person("admin", "ADMIN", null);

    process.env.TRANCHE_AGENT_HEARTBEAT_SEC = "1";
    gateway = await serveAgentProtocol(db.prisma, 0);
    const enrolled = await issueEnrollmentTokens(db.prisma, cluster.id, ["c1-0", "c1-1"]);
    for (const t of enrolled) {
      const node = t.nodeName!;
      const args = ["--server", gateway.url, "--state-dir", join(stateDir, node), "--node-name", node];
      args.push("--fake-gpus", "8", "--enrollment-token", t.token, "--checkpoint-root", root, "--session-host", "127.0.0.1");
      if (process.getuid?.() === 0) args.push("--allow-root-jobs");
      // Stopped at the end, the agents stop the session servers they launched (no process is left behind).
      args.push("--stop-jobs-on-exit");
      run("apps/node-agent/src/main.ts", args, { TRANCHE_AGENT_HEARTBEAT_SEC: "1" });
    }
    run("apps/worker/src/main.ts", [], { DATABASE_URL: db.url, TRANCHE_CYCLE_INTERVAL_MS: "500" });
    await waitFor("both agents", async () => (await db.prisma.node.count({ where: { lastHeartbeatAt: { not: null } } })) === 2);
  });

  afterAll(async () => {
    for (const p of processes.reverse()) {
      if (p.exitCode !== null || p.signalCode !== null) continue;
      p.kill("SIGTERM");
      await new Promise((ok) => {
        const t = setTimeout(() => p.kill("SIGKILL"), 10_000);
        p.once("exit", () => ok(clearTimeout(t)));
      });
    }
    await gateway?.close();
    await db?.drop();
    for (const d of [stateDir, root]) rmSync(d, { recursive: true, force: true });
  });

  const proxy = (who: keyof typeof users | null, id: number, path: string, body?: unknown) =>
    callRest(w, body === undefined ? "GET" : "POST", `/sessions/${id}/proxy/${path}`, {
      token: who ? tokens[who] : null,
      body,
      sessionsHost: true,
    });
  const sh = async (id: number, command: string) => {
    const r = await proxy("ada", id, "exec", { command });
    expect(r.status).toBe(200);
    return r.body as { exitCode: number; stdout: string; stderr: string };
  };

  let sessionId = 0;

  it("starts a session whose server its owner reaches through the proxy, in a working folder on the checkpoint root", async () => {
    const r = await callRest(w, "POST", "/sessions", {
      token: tokens.ada,
      body: { cluster: "c1", budget: "lab/b", gpus: 8, minRuntime: "3s" },
    });
    expect(r.status).toBe(201);
    expect(r.body.job).toMatchObject({ kind: "INTERACTIVE", state: "PENDING", resumable: true, requeue: true });
    expect(r.body.job.secretEnvNames).toEqual(["TRANCHE_SESSION_TOKEN"]);
    sessionId = r.body.job.id as number;

    await waitFor(
      "the session's server to answer through the proxy",
      async () => (await proxy("ada", sessionId, "health")).status === 200,
    );
    const out = await sh(sessionId, 'echo kept-across-preemption > notes.txt && echo "$TRANCHE_NODE_NAME in $(pwd)"');
    const dir = join(root, "sessions", users.ada.id);
    expect(out).toMatchObject({ exitCode: 0, stdout: `c1-0 in ${dir}\n` });
    expect(statSync(dir).mode & 0o777).toBe(0o700);

    const view = (await callRest(w, "GET", `/jobs/${sessionId}`, { token: tokens.ada })).body.job;
    expect(view.session).toMatchObject({
      server: "SHELL",
      node: "c1-0",
      host: "127.0.0.1",
      dir,
      proxyPath: `/api/v1/sessions/${sessionId}/proxy/`,
    });
    expect(view.session.port).toBeGreaterThan(0);
  }, 120_000);

  it("is reachable by its owner only: others get 404, as if it did not exist, and without a token 401", async () => {
    expect((await proxy("eve", sessionId, "health")).status).toBe(404);
    expect((await proxy("admin", sessionId, "health")).status).toBe(404);
    expect((await proxy("eve", sessionId, "exec", { command: "touch /tmp/x" })).status).toBe(404);
    expect((await proxy(null, sessionId, "health")).status).toBe(401);
    // Nor does anyone else see where it listens.
    const asEve = (await callRest(w, "GET", `/jobs/${sessionId}`, { token: tokens.eve })).body.job;
    expect(asEve.session).toBeNull();
    // A batch job is no session, even to its owner.
    const batch = await submitJob(db.prisma, users.bob, {
      cluster: "c1",
      budget: "lab/a",
      gpus: 1,
      minRuntime: 0,
      maxRuntime: null,
      resumable: false,
      priority: 0,
      env: {},
      gracePeriod: null,
      command: "true",
    } as never);
    expect((await proxy("bob", batch.id, "health")).status).toBe(404);
    await callRest(w, "POST", `/jobs/${batch.id}/cancel`, { token: tokens.bob });
  });

  it("is preempted once its protection is over, warned with its grace period, and comes back on the other node with its file", async () => {
    // Bob's budget is far below its share: his job needs the GPUs the session holds past its 3 s of protection.
    const bob = await submitJob(db.prisma, users.bob, {
      cluster: "c1",
      budget: "lab/a",
      gpus: 8,
      minRuntime: 600,
      maxRuntime: null,
      resumable: false,
      priority: 0,
      env: {},
      gracePeriod: null,
      command: "sleep 600",
    } as never);
    await waitFor("the session to be preempted and requeued", async () => {
      const j = await db.prisma.job.findUniqueOrThrow({ where: { id: sessionId } });
      return j.state === "PENDING" && j.requeueCount === 1;
    });
    const preempted = await db.prisma.jobEvent.findFirstOrThrow({ where: { jobId: sessionId, kind: "PREEMPTED" } });
    expect(preempted.sentence).not.toBe("");
    const warning = await db.prisma.notification.findFirstOrThrow({ where: { jobId: sessionId, kind: "PREEMPTION_WARNING" } });
    expect(warning.userId).toBe(users.ada.id);
    expect(warning.title).toMatch(/is being preempted: it has \d+ s to save its state/);
    // While it waits, the proxy says so (and still only to its owner).
    const waiting = await proxy("ada", sessionId, "health");
    expect(waiting.status).toBe(409);
    expect(waiting.body.error.message).toBe(`Session ${sessionId} is waiting for GPUs: it can be reached once it runs`);

    await db.prisma.node.update({ where: { name: "c1-1" }, data: { state: "READY" } });
    await waitFor("the session to answer again", async () => (await proxy("ada", sessionId, "health")).status === 200, 60_000);
    const back = await sh(sessionId, 'cat notes.txt && echo "$TRANCHE_NODE_NAME $TRANCHE_RESTART_COUNT"');
    expect(back).toMatchObject({ exitCode: 0, stdout: "kept-across-preemption\nc1-1 1\n" });
    expect((await db.prisma.job.findUniqueOrThrow({ where: { id: bob.id } })).state).toBe("RUNNING");
  }, 120_000);

  it("extends a running session's protection as a new contract, and refuses one past the cluster's cap, storing nothing", async () => {
    const before = await db.prisma.job.findUniqueOrThrow({ where: { id: sessionId } });
    const events = await db.prisma.jobEvent.count({ where: { jobId: sessionId } });

    const over = await callRest(w, "POST", `/jobs/${sessionId}/extend`, { token: tokens.ada, body: { by: "9h" } });
    expect(over.status).toBe(400);
    expect(over.body.error.message).toMatch(
      new RegExp(
        `^Session ${sessionId} cannot be extended by 9 h: Protection lasts at most 8 h after a start on this cluster; it can be extended by at most 7 h \\d+ min( \\d+ s)?, not 9 h\\.$`,
      ),
    );
    expect(over.body.error.issues).toEqual([{ path: "by", message: over.body.error.message }]);
    const notYours = await callRest(w, "POST", `/jobs/${sessionId}/extend`, { token: tokens.eve, body: { by: "1h" } });
    expect(notYours.status).toBe(403);
    expect(notYours.body.error.message).toBe(`Job ${sessionId} is not yours: only its owner may extend it`);
    const zero = await callRest(w, "POST", `/jobs/${sessionId}/extend`, { token: tokens.ada, body: { by: 0 } });
    expect(zero.status).toBe(400);
    expect(zero.body.error.message).toContain("by must be positive");
    const after = await db.prisma.job.findUniqueOrThrow({ where: { id: sessionId } });
    expect(after.minRuntimeSec).toBe(before.minRuntimeSec);
    expect(after.protectedUntil).toEqual(before.protectedUntil);
    expect(await db.prisma.jobEvent.count({ where: { jobId: sessionId } })).toBe(events);

    const t0 = Date.now();
    const ok = await callRest(w, "POST", `/jobs/${sessionId}/extend`, { token: tokens.ada, body: { by: "1h" } });
    const t1 = Date.now();
    expect(ok.status).toBe(200);
    const extended = await db.prisma.job.findUniqueOrThrow({ where: { id: sessionId } });
    const run = await db.prisma.runSegment.findFirstOrThrow({ where: { jobId: sessionId, endedAt: null } });
    // The hour counts from the end of its protection (3 s after its start), or from now once that has passed;
    // the new contract runs from its start. (Whole seconds, as the scheduler counts.)
    const prevEnd = before.protectedUntil!.getTime();
    expect(extended.protectedUntil!.getTime()).toBeGreaterThanOrEqual(Math.max(t0, prevEnd) + 3600_000 - 1000);
    expect(extended.protectedUntil!.getTime()).toBeLessThanOrEqual(Math.max(t1, prevEnd) + 3600_000);
    expect(ok.body.job.protectedUntil).toBe(extended.protectedUntil!.toISOString());
    expect(run.protectedUntil).toEqual(extended.protectedUntil);
    expect(extended.minRuntimeSec).toBe(Math.round((extended.protectedUntil!.getTime() - run.startedAt.getTime()) / 1000));
    expect(run.charged).toBe(true);
    const event = await db.prisma.jobEvent.findFirstOrThrow({ where: { jobId: sessionId, kind: "EXTENDED" } });
    expect(event.sentence).toMatch(
      /^ada extended its protection by 1 h: nothing preempts it for (59 min \d+ s|1 h( \d+ s)?)\. .*charged to lab\/b\.$/,
    );
  });

  it("refuses a session for a budget one is not a member of, and malformed ones, storing nothing", async () => {
    const jobs = await db.prisma.job.count();
    const foreign = await callRest(w, "POST", "/sessions", {
      token: tokens.eve,
      body: { cluster: "c1", budget: "lab/b", gpus: 1, minRuntime: "4h" },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.message).toBe("You may not charge budget 'lab/b': you are not one of its members");
    const overCap = await callRest(w, "POST", "/sessions", {
      token: tokens.ada,
      body: { cluster: "c1", budget: "lab/b", gpus: 1, minRuntime: "9h" },
    });
    expect(overCap.status).toBe(400);
    expect(overCap.body.error.message).toBe("Minimum runtime 9 h is above the cluster's limit of 8 h");
    const unknown = await callRest(w, "POST", "/sessions", {
      token: tokens.ada,
      body: { cluster: "c1", budget: "lab/b", minRuntime: "1h", command: "rm -rf /" },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain("unknown field 'command' in a session request");
    expect(await db.prisma.job.count()).toBe(jobs);
  });
});
