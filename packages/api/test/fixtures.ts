import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import { seedDemoWorld } from "@tranche/db/setup";
import { SESSION_TOKEN_VAR, startSession, type Actor, type Role } from "@tranche/domain";
import { createCaller } from "../src";
import { handleRest } from "../src/rest";

export interface World {
  db: TestDatabase;
  users: Record<"ada" | "maya" | "victor" | "omar" | "admin" | "other", Actor>;
  caller: (who: keyof World["users"] | null) => ReturnType<typeof createCaller>;
  counts: () => Promise<{ jobs: number; events: number; changes: number; audits: number; nodeEvents: number }>;
}

/** A fresh migrated database with the demo world, and a tRPC caller per demo user. */
export async function makeWorld(label: string): Promise<World> {
  const db = await createTestDatabase(label);
  await seedDemoWorld(db.prisma);
  const pick = async (email: string): Promise<Actor> => {
    const u = await db.prisma.user.findUniqueOrThrow({ where: { email } });
    return { id: u.id, email: u.email, name: u.name, role: u.role as Role };
  };
  // "other": a researcher who is a member of lab/vision/video but not of Ada's budgets.
  const video = await db.prisma.budgetTreeNode.findUniqueOrThrow({
    where: { path: "lab/vision/video" },
    include: { members: true },
  });
  const otherUser = await db.prisma.user.findUniqueOrThrow({ where: { id: video.members[0]!.userId } });
  const users = {
    ada: await pick("ada@tranche.example"),
    maya: await pick("maya@tranche.example"),
    victor: await pick("victor@tranche.example"),
    omar: await pick("omar@tranche.example"),
    admin: await pick("admin@tranche.example"),
    other: { id: otherUser.id, email: otherUser.email, name: otherUser.name, role: otherUser.role as Role },
  };
  return {
    db,
    users,
    caller: (who) => createCaller({ prisma: db.prisma, user: who ? users[who] : null }),
    counts: async () => ({
      jobs: await db.prisma.job.count(),
      events: await db.prisma.jobEvent.count(),
      changes: await db.prisma.allocationChange.count(),
      audits: await db.prisma.auditLog.count(),
      nodeEvents: await db.prisma.nodeEvent.count(),
    }),
  };
}

/**
 * A session of `who` running on h100 (as its agent would have reported it) whose server listens on
 * 127.0.0.1:`port`: its job id and its own token (what the proxy sends that server).
 */
export async function runningSession(w: World, who: Actor, port: number): Promise<{ id: number; token: string }> {
  const job = await startSession(w.db.prisma, who, {
    cluster: "h100",
    budget: "lab/language/pretraining",
    gpus: 1,
    minRuntime: 3600,
    jupyter: false,
  });
  const row = await w.db.prisma.job.update({ where: { id: job.id }, data: { state: "RUNNING", startedAt: new Date() } });
  await w.db.prisma.runSegment.create({
    data: {
      jobId: job.id,
      clusterId: row.clusterId,
      budgetId: row.budgetId,
      gpus: 1,
      startedAt: new Date(),
      charged: true,
      sessionHost: "127.0.0.1",
      sessionPort: port,
    },
  });
  return { id: job.id, token: (row.secretEnv as Record<string, string>)[SESSION_TOKEN_VAR]! };
}

export const goodJob = {
  cluster: "h100",
  budget: "lab/language/pretraining",
  gpus: 8,
  minRuntime: "2h",
  resumable: true,
  priority: 0,
  command: "python train.py",
  env: { SEED: "1" },
  name: "pretrain-7b",
};

/** The web app's address and the sessions host in tests, as `npm start` has them by default. */
export const TEST_ORIGINS = { app: "http://127.0.0.1:3000", sessions: "http://localhost:3000" };

/**
 * One REST request through the same handler the web app serves, as a script would send it.
 * `sessionsHost`: sent to the sessions host (the only place a session's proxy answers).
 */
export async function callRest(
  w: World,
  method: string,
  path: string,
  opts: { token?: string | null; body?: unknown; raw?: string; sessionsHost?: boolean } = {},
) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.sessionsHost) headers.host = new URL(TEST_ORIGINS.sessions).host;
  const req = new Request(`http://127.0.0.1:3000/api/v1${path}`, {
    method,
    headers,
    body: opts.raw ?? (opts.body !== undefined ? JSON.stringify(opts.body) : undefined),
  });
  const res = await handleRest(req, path.split("?")[0]!, { prisma: w.db.prisma, origins: TEST_ORIGINS });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test assertions walk arbitrary JSON
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** The REST handler served over HTTP on a free port, for tests that run the real CLI process. */
export async function serveRest(w: World): Promise<{ url: string; close: () => Promise<void> }> {
  const http = await import("node:http");
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const r = await handleRest(
      new Request(`http://127.0.0.1${req.url}`, {
        method: req.method,
        headers: req.headers as Record<string, string>,
        body: body.length ? body : undefined,
      }),
      req.url!.replace(/^\/api\/v1/, "").split("?")[0]!,
      { prisma: w.db.prisma },
    );
    res.writeHead(r.status, { "content-type": "application/json" });
    res.end(await r.text());
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((ok) => server.close(() => ok())) };
}
