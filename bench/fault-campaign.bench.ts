// Fault campaign (R9: no job FAILED by a platform fault, none run twice): the real platform (scripts/
// platform.ts, demo world) plus two agents of our own whose clocks are off by minutes (one ahead, one
// behind) takes a stream of jobs (single, resumable or not, arrays, dependencies, some pinned to our
// agents) while faults are injected at seeded random moments: SIGKILL of the worker, the web app and an
// agent; SIGSTOP of an agent past the heartbeat timeout; Postgres stopped fast and immediate;
// pg_terminate_backend of every connection; a second worker beside the leader. Then it checks, from the
// database, /proc and the processes' own output, what bench/README.md "Fault campaign" lists. A check,
// not a test: it exits 1 when one fails.
//
//   npx turbo run build && node --import tsx bench/fault-campaign.bench.ts [--seed 40] [--rounds 2] [--window 420]
//
// PORT (default 3205) and TRANCHE_PG_PORT (default 54205) pick its ports; its data lives in a fresh folder
// under /tmp, removed at the end unless --keep.
import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { oneShotQuery } from "./support/one-shot-query";
import { createPrismaClient } from "@tranche/db";
import { embeddedDatabaseUrl, repoRoot } from "@tranche/db/setup";
import { createApiToken } from "@tranche/domain";
import { mulberry32 } from "./support/prng";

const { values } = parseArgs({
  options: {
    seed: { type: "string" },
    rounds: { type: "string" },
    window: { type: "string" },
    keep: { type: "boolean" },
  },
});
const SEED = Number(values.seed ?? 40);
const ROUNDS = Number(values.rounds ?? 2);
const WINDOW_S = Number(values.window ?? 420);
const DRAIN_S = 150;
const PORT = Number(process.env.PORT ?? 3205);
const PG_PORT = Number(process.env.TRANCHE_PG_PORT ?? 54205);
const WEB = `http://127.0.0.1:${PORT}`;
const ROOT = repoRoot();
const SKEW_MIN = 4;
const PAUSE_S = 48; // past heartbeatTimeout + fenceGrace (30 + 10 s): the control plane declares the node DOWN

const rand = mulberry32(SEED);
const T0 = Date.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const at = () => ((Date.now() - T0) / 1000).toFixed(1).padStart(6);
const log = (l: string) => console.log(`[campaign ${at()} s] ${l}`);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

const base = mkdtempSync(join(tmpdir(), "tranche-campaign-"));
chmodSync(base, 0o755);
const dataDir = join(base, "postgres");
const runDir = join(base, "run");
const RUN = base.split("-").pop()!;
const MARK = { FAULT_CAMPAIGN_RUN: RUN };

// ---- the database and the web app, from outside ----

let dbUrl = "";
const query = <T>(sql: string, params: unknown[] = []) => oneShotQuery<T>(dbUrl, sql, params, 8000);
const tryQuery = <T>(sql: string, params: unknown[] = []) => query<T>(sql, params).catch(() => null);

async function status(path: string, token?: string): Promise<number> {
  try {
    const r = await fetch(`${WEB}${path}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      redirect: "manual",
      signal: AbortSignal.timeout(5000),
    });
    await r.arrayBuffer();
    return r.status;
  } catch {
    return 0;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
const signal = (pid: number, sig: NodeJS.Signals) => {
  try {
    process.kill(pid, sig);
  } catch {
    // gone already
  }
};

/** Every process of this run: the platform's (its data folder in the environment) and ours (the marker). */
function processes(): { pid: number; ppid: number; env: Map<string, string> }[] {
  const out = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const raw = readFileSync(`/proc/${d}/environ`, "utf8");
      if (!raw.includes(base) && !raw.includes(`FAULT_CAMPAIGN_RUN=${RUN}`)) continue;
      const env = new Map(raw.split("\0").map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (rest[0] === "Z") continue;
      out.push({ pid: Number(d), ppid: Number(rest[1]), env });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

// ---- the platform and our processes ----

const outputs = new Map<string, string[]>();
/** Each process's output in memory and in `<data folder>/logs/<name>.log` (kept with --keep). */
function keepOutput(name: string, p: ChildProcess, show: RegExp): void {
  const lines = outputs.get(name) ?? [];
  outputs.set(name, lines);
  mkdirSync(join(base, "logs"), { recursive: true });
  const file = join(base, "logs", `${name}.log`);
  const keep = (d: Buffer) => {
    for (const l of d.toString().split("\n"))
      if (l.trim()) {
        lines.push(l);
        appendFileSync(file, `${at()} ${l}\n`);
        if (show.test(l)) log(`${name}: ${l.slice(0, 220)}`);
      }
  };
  p.stdout?.on("data", keep);
  p.stderr?.on("data", keep);
}

let platform: ChildProcess;
let platformExit: string | null = null;
let stopping = false;
async function startPlatform(): Promise<void> {
  platform = spawn(process.execPath, ["--import", "tsx", join(ROOT, "scripts", "platform.ts")], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(PORT),
      TRANCHE_PG_PORT: String(PG_PORT),
      TRANCHE_DATA_DIR: dataDir,
      TRANCHE_RUN_DIR: runDir,
      TRANCHE_DEMO: "1",
      TRANCHE_DEMO_DEMAND: "0.4",
      NEXT_TELEMETRY_DISABLED: "1",
      DATABASE_URL: "",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  keepOutput("platform", platform, /exited|restart|PostgreSQL|Error|error/);
  platform.on("exit", (code, sig) => {
    platformExit = `${code ?? sig}`;
    if (!stopping) log(`the platform supervisor EXITED (${platformExit})`);
  });
  const deadline = Date.now() + 300_000;
  while (!outputs.get("platform")!.some((l) => l.includes("Tranche is running"))) {
    if (platformExit !== null)
      throw new Error(`the platform exited during start:\n${outputs.get("platform")!.slice(-30).join("\n")}`);
    if (Date.now() > deadline) throw new Error("the platform was not ready in 300 s");
    await sleep(500);
  }
  dbUrl = embeddedDatabaseUrl(PG_PORT, readFileSync(`${dataDir}.password`, "utf8").trim());
}

function services(): Record<string, number> {
  try {
    return (JSON.parse(readFileSync(join(runDir, "platform.json"), "utf8")) as { services: Record<string, number> }).services;
  } catch {
    return {};
  }
}

/** Our agents: one node each on the h100 cluster, clocks SKEW_MIN minutes ahead or behind. */
interface OwnAgent {
  node: string;
  skewMs: number;
  proc: ChildProcess | null;
  starts: number;
}
const ownAgents: OwnAgent[] = [
  { node: `h100-ahead-${RUN}`, skewMs: SKEW_MIN * 60_000, proc: null, starts: 0 },
  { node: `h100-behind-${RUN}`, skewMs: -SKEW_MIN * 60_000, proc: null, starts: 0 },
];
function startAgent(a: OwnAgent, token?: string): void {
  const args = ["--import", "tsx", "--import", join(ROOT, "packages/testkit/src/skewed-clock.mjs")];
  args.push(join(ROOT, "apps/node-agent/src/main.ts"), "--server", WEB, "--state-dir", join(base, "agents"));
  args.push("--fake-gpus", "8", "--node-name", a.node, "--session-host", "127.0.0.1", "--allow-root-jobs");
  if (token) args.push("--enrollment-token", token);
  a.proc = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...MARK, CLOCK_SKEW_MS: String(a.skewMs), DATABASE_URL: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  a.starts++;
  keepOutput(a.node, a.proc, /rror|uncaught|fenc|Unhandled/);
  const proc = a.proc;
  proc.on("exit", (code, sig) => {
    if (!stopping && sig !== "SIGKILL")
      log(`agent ${a.node} exited (${code ?? sig}): ${outputs.get(a.node)!.slice(-5).join(" | ").slice(0, 600)}`);
  });
}

/** A second worker beside the supervisor's: the lease must keep it standing by. */
function startSecondWorker(n: number): ChildProcess {
  const p = spawn(process.execPath, ["--import", "tsx", join(ROOT, "apps/worker/src/main.ts")], {
    cwd: ROOT,
    env: { ...process.env, ...MARK, DATABASE_URL: dbUrl, TRANCHE_WORKER_ID: `second-${n}` },
    stdio: ["ignore", "pipe", "pipe"],
  });
  keepOutput(`second-worker-${n}`, p, /leader|lease|rror/);
  return p;
}

// ---- the job stream ----

const ALL_DONE = ["COMPLETED", "FAILED", "PREEMPTED", "CANCELLED", "KILLED", "LOST"];
let submitErrors = 0;
const submitAnswers = new Map<number, number>();
async function submit(token: string, body: Record<string, unknown>): Promise<number | null> {
  for (let attempt = 0; attempt < 10; attempt++) {
    try {
      const r = await fetch(`${WEB}/api/v1/jobs`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
      submitAnswers.set(r.status, (submitAnswers.get(r.status) ?? 0) + 1);
      const j = (await r.json().catch(() => null)) as { job?: { id: number } } | null;
      if (r.status === 201 || r.status === 200) return j?.job?.id ?? null;
      if (r.status < 500) {
        log(`submit refused: ${r.status} ${JSON.stringify(j).slice(0, 200)}`);
        return null;
      }
    } catch {
      submitErrors++;
    }
    await sleep(2000); // the same idempotency key again: a retry never makes a second job
  }
  return null;
}

async function jobStream(token: string, until: () => boolean): Promise<void> {
  for (let b = 0; !until(); b++) {
    const one = (i: number, extra: Record<string, unknown> = {}) => {
      const name = `campaign-${RUN}-${b}-${i}`;
      return {
        cluster: "h100",
        budget: "lab/language/pretraining",
        gpus: rand() < 0.7 ? 1 : 2,
        minRuntime: 900,
        resumable: rand() < 0.5,
        command: `sleep ${4 + Math.floor(rand() * 14)}`,
        env: MARK,
        name,
        idempotencyKey: name,
        ...extra,
      };
    };
    const kind = b % 4;
    if (kind === 0) {
      const first = await submit(token, one(0, { array: "0-3%2" }));
      if (first !== null) await submit(token, one(1, { after: [`${first}:any`] }));
    } else if (kind === 1) {
      await submit(token, one(0, { nodes: [pick(ownAgents).node] }));
      await submit(token, one(1, { nodes: [pick(ownAgents).node], resumable: true }));
    } else {
      await Promise.all([submit(token, one(0)), submit(token, one(1)), submit(token, one(2))]);
    }
    await sleep(2500 + rand() * 2500);
  }
}

// ---- samplers: job processes (/proc) and what users see (HTTP) ----

/** Root processes per job seen alive at the same moment; distinct root pids per run segment over time. */
const twoAtOnce = new Set<string>();
const rootsOfSegment = new Map<string, Set<number>>();
function sampleJobs(): void {
  const mine = processes().filter((p) => p.env.get("FAULT_CAMPAIGN_RUN") === RUN && p.env.has("TRANCHE_SEGMENT_ID"));
  const pids = new Set(mine.map((p) => p.pid));
  const perJob = new Map<string, number>();
  for (const p of mine.filter((p) => !pids.has(p.ppid))) {
    const job = p.env.get("TRANCHE_JOB_ID")!;
    const seg = p.env.get("TRANCHE_SEGMENT_ID")!;
    perJob.set(job, (perJob.get(job) ?? 0) + 1);
    rootsOfSegment.set(seg, (rootsOfSegment.get(seg) ?? new Set()).add(p.pid));
  }
  for (const [job, n] of perJob) if (n > 1) twoAtOnce.add(job);
}

/** Each second: one page and one REST read as a user; the moments they failed (0: no answer, 5xx). */
const userErrors: { t: number; what: string }[] = [];
async function probeUsers(token: string): Promise<void> {
  const [page, api] = await Promise.all([status("/sign-in"), status("/api/v1/jobs?limit=1", token)]);
  const t = Date.now();
  if (page === 0 || page >= 500) userErrors.push({ t, what: `GET /sign-in ${page || "no answer"}` });
  if (api === 0 || api >= 500) userErrors.push({ t, what: `GET /api/v1/jobs ${api || "no answer"}` });
}

// ---- the faults ----

type Fault = "worker" | "web" | "pg-fast" | "pg-immediate" | "pg-terminate" | "agent-kill" | "agent-pause" | "two-workers";
const FAULTS: Fault[] = ["worker", "web", "pg-fast", "pg-immediate", "pg-terminate", "agent-kill", "agent-pause", "two-workers"];
interface Done {
  fault: Fault;
  what: string;
  start: number;
  /** when the service was back (ms), null when it was not within the limit */
  back: number | null;
}

async function until(check: () => Promise<boolean> | boolean, limitMs = 60_000): Promise<number | null> {
  const end = Date.now() + limitMs;
  while (Date.now() < end) {
    if (await check()) return Date.now();
    await sleep(250);
  }
  return null;
}
const dbAnswers = async () => (await tryQuery("SELECT 1")) !== null;
const leaderSince = async (since: number, not?: string) =>
  ((
    await tryQuery<{ n: number }>(
      `SELECT count(*)::int AS n FROM worker_lease WHERE "lastCycleAt" > $1 AND "expiresAt" > now() AND "holderId" <> $2`,
      [new Date(since), not ?? ""],
    )
  )?.[0]?.n ?? 0) > 0;
const heartbeatSince = async (prefix: string, since: number, count: number) =>
  ((
    await tryQuery<{ n: number }>(`SELECT count(*)::int AS n FROM node WHERE name LIKE $1 AND "lastHeartbeatAt" > $2`, [
      `${prefix}%`,
      new Date(since),
    ])
  )?.[0]?.n ?? 0) >= count;

function postmaster(): number {
  return Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
}

/** An agent to hurt: a demo agent process (its supervisor restarts it) or one of ours (we do). */
function pickAgent(): { label: string; pid: number; back: (since: number) => Promise<boolean>; own?: OwnAgent } {
  const demo = Object.entries(services()).filter(([n]) => n.startsWith("agents-"));
  if (rand() < 0.5 && demo.length) {
    const [name, pid] = pick(demo);
    const cluster = name.slice("agents-".length);
    const nodes = cluster === "h100" ? 32 : 11;
    return { label: name, pid, back: (s) => heartbeatSince(`${cluster}-`, s, nodes) };
  }
  const own = pick(ownAgents);
  return { label: own.node, pid: own.proc!.pid!, own, back: (s) => heartbeatSince(own.node, s, 1) };
}

let secondWorkers = 0;
async function inject(fault: Fault): Promise<Done> {
  const start = Date.now();
  const done = (what: string, back: number | null): Done => ({ fault, what, start, back });
  switch (fault) {
    case "worker": {
      const pid = services().worker!;
      signal(pid, "SIGKILL");
      return done(`SIGKILL worker ${pid}`, await until(() => leaderSince(start)));
    }
    case "web": {
      const pid = services().web!;
      signal(pid, "SIGKILL");
      return done(`SIGKILL web ${pid}`, await until(async () => services().web !== pid && (await status("/api/health")) === 200));
    }
    case "pg-fast":
    case "pg-immediate": {
      const pid = postmaster();
      signal(pid, fault === "pg-fast" ? "SIGINT" : "SIGQUIT");
      await until(() => !alive(pid), 30_000);
      return done(`Postgres stopped (${fault.slice(3)} mode)`, await until(dbAnswers));
    }
    case "pg-terminate": {
      const r = await query<{ n: number }>(
        `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = 'tranche' AND pid <> pg_backend_pid()`,
      );
      return done(`pg_terminate_backend on ${r[0]!.n} connections`, Date.now());
    }
    case "agent-kill": {
      const a = pickAgent();
      signal(a.pid, "SIGKILL");
      if (a.own) {
        await sleep(1000 + rand() * 15_000); // restarted within the heartbeat timeout or not
        startAgent(a.own);
      }
      return done(`SIGKILL agent ${a.label}`, await until(() => a.back(start), 90_000));
    }
    case "agent-pause": {
      const a = pickAgent();
      signal(a.pid, "SIGSTOP");
      await sleep(PAUSE_S * 1000);
      signal(a.pid, "SIGCONT");
      const resumed = Date.now();
      return done(`SIGSTOP agent ${a.label} for ${PAUSE_S} s, then SIGCONT`, await until(() => a.back(resumed), 90_000));
    }
    case "two-workers": {
      const n = ++secondWorkers;
      const second = startSecondWorker(n);
      await sleep(8000 + rand() * 8000);
      // Then the first leader dies: the second must take over (and the restarted first stand by).
      const first = services().worker!;
      const killedAt = Date.now();
      signal(first, "SIGKILL");
      const back = await until(() => leaderSince(killedAt), 60_000);
      await sleep(5000 + rand() * 5000);
      second.kill("SIGKILL");
      await until(() => leaderSince(Date.now(), `second-${n}`), 60_000);
      return done(`second worker beside the leader, then SIGKILL of the first (${first})`, back);
    }
  }
}

// ---- main ----

async function main(): Promise<number> {
  log(`data in ${base}; web ${WEB}; Postgres on ${PG_PORT}; seed ${SEED}; ${ROUNDS} round(s) of ${FAULTS.length} faults`);
  await startPlatform();
  log("platform ready");
  const prisma = createPrismaClient(dbUrl, { max: 1 });
  const ada = await prisma.user.findUniqueOrThrow({ where: { email: "ada@tranche.example" } });
  const admin = await prisma.user.findFirstOrThrow({ where: { role: "ADMIN" } });
  const adaToken = (await createApiToken(prisma, ada, { name: "campaign" })).token;
  const adminToken = (await createApiToken(prisma, admin, { name: "campaign" })).token;
  await prisma.$disconnect();
  for (const a of ownAgents) {
    const r = await fetch(`${WEB}/api/v1/clusters/h100/enrollment-tokens`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${adminToken}` },
      body: "{}",
    });
    const body = (await r.json()) as { token?: string };
    if (!body.token) throw new Error(`no enrollment token: ${r.status} ${JSON.stringify(body)}`);
    startAgent(a, body.token);
  }
  if ((await until(() => heartbeatSince(`h100-`, T0, 34), 90_000)) === null) throw new Error("our agents did not heartbeat");
  log("our two agents heartbeat");

  const windowEnd = Date.now() + WINDOW_S * 1000;
  let streaming = true;
  const stream = jobStream(adaToken, () => !streaming);
  let sampling = true;
  const samplers = Promise.all([
    (async () => {
      while (sampling) {
        sampleJobs();
        await sleep(500);
      }
    })(),
    (async () => {
      while (sampling) {
        await probeUsers(adaToken);
        await sleep(1000);
      }
    })(),
  ]);

  const order: Fault[] = Array.from({ length: ROUNDS }, () => FAULTS).flat();
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const faults: Done[] = [];
  await sleep(15_000);
  for (const f of order) {
    if (Date.now() > windowEnd || platformExit !== null) {
      log(`window over: ${f} skipped`);
      continue;
    }
    const d = await inject(f);
    faults.push(d);
    log(`${d.what}: ${d.back === null ? "NOT back within the limit" : `back after ${((d.back - d.start) / 1000).toFixed(1)} s`}`);
    await sleep(4000 + rand() * 8000);
  }
  streaming = false;
  await stream;
  log(`faults done; draining up to ${DRAIN_S} s`);
  const mine = `campaign-${RUN}-%`;
  await until(async () => {
    const r = await tryQuery<{ n: number }>(`SELECT count(*)::int AS n FROM job WHERE name LIKE $1 AND state <> ALL($2)`, [
      mine,
      ALL_DONE,
    ]);
    return r?.[0]?.n === 0;
  }, DRAIN_S * 1000);
  sampling = false;
  await samplers;
  return report(faults, mine);
}

async function report(faults: Done[], mine: string): Promise<number> {
  const problems: string[] = [];
  const states = await query<{ state: string; resumable: boolean; n: number }>(
    `SELECT state, resumable, count(*)::int AS n FROM job WHERE name LIKE $1 GROUP BY 1, 2 ORDER BY 1, 2`,
    [mine],
  );
  const failed = await query<{ id: number; detail: string | null }>(
    `SELECT j.id, (SELECT s."endDetail" FROM run_segment s WHERE s."jobId" = j.id ORDER BY s.id DESC LIMIT 1) AS detail
     FROM job j WHERE j.name LIKE $1 AND j.state = 'FAILED'`,
    [mine],
  );
  const lostResumable = states.filter((s) => s.state === "LOST" && s.resumable).reduce((a, s) => a + s.n, 0);
  const stuck = await query<{ id: number; state: string; reason: string | null }>(
    `SELECT id, state, "reasonText" AS reason FROM job WHERE name LIKE $1 AND state <> ALL($2) ORDER BY id LIMIT 10`,
    [mine, ALL_DONE],
  ).catch(() =>
    query<{ id: number; state: string; reason: null }>(
      `SELECT id, state, NULL AS reason FROM job WHERE name LIKE $1 AND state <> ALL($2) ORDER BY id LIMIT 10`,
      [mine, ALL_DONE],
    ),
  );
  // Every job in the database, the demo workload's too: no two run segments of one job overlap in time.
  const overlap = await query<{ jobId: number }>(
    `SELECT DISTINCT a."jobId" FROM run_segment a JOIN run_segment b ON a."jobId" = b."jobId" AND a.id < b.id
     WHERE tstzrange(a."startedAt", coalesce(a."endedAt", 'infinity')) && tstzrange(b."startedAt", coalesce(b."endedAt", 'infinity'))`,
  );
  // Runs that finished on our two agents, whose clocks are off: each command sleeps 4 s or more.
  const shortRuns = await query<{ node: string; n: number }>(
    `SELECT n.name AS node, count(*)::int AS n FROM run_segment s JOIN segment_placement p ON p."segmentId" = s.id
     JOIN node n ON n.id = p."nodeId" JOIN job j ON j.id = s."jobId"
     WHERE j.name LIKE $1 AND s."endReason" = 'FINISH' AND s."endedAt" - s."startedAt" < interval '3 seconds'
     GROUP BY 1`,
    [mine],
  );
  const startedTwice = [...rootsOfSegment].filter(([, pids]) => pids.size > 1).map(([seg]) => seg);
  const leaders = [...outputs]
    .filter(([n]) => n.startsWith("second-worker"))
    .flatMap(([, ls]) => ls.filter((l) => l.includes("now the leader")));

  // After each fault: users' errors past the moment the service was back (2 s of slack for the probe).
  const recoveryErrors = faults.map((f, i) => {
    const next = faults[i + 1]?.start ?? Infinity;
    const after = userErrors.filter((e) => e.t > (f.back ?? f.start) + 2000 && e.t < next);
    return { f, after };
  });

  console.log(`\nFault campaign (seed ${SEED}, run ${RUN})\n`);
  for (const { f, after } of recoveryErrors)
    console.log(
      `  ${((f.start - T0) / 1000).toFixed(0).padStart(5)} s  ${f.what.padEnd(70)} ${f.back === null ? "NOT BACK" : `back ${((f.back - f.start) / 1000).toFixed(1)} s`}${after.length ? `; users saw ${after.length} errors after that (${after[0]!.what})` : ""}`,
    );
  console.log(`\njobs by state        ${states.map((s) => `${s.state}${s.resumable ? " (resumable)" : ""} ${s.n}`).join(", ")}`);
  console.log(
    `submit answers       ${[...submitAnswers].map(([s, n]) => `${s}: ${n}`).join(", ")}; ${submitErrors} without an answer`,
  );
  console.log(`job processes seen   ${rootsOfSegment.size} runs`);
  const check = (ok: boolean, line: string) => {
    console.log(`${ok ? "ok  " : "FAIL"} ${line}`);
    if (!ok) problems.push(line);
  };
  check(
    failed.length === 0,
    `jobs FAILED (every command exits 0): ${failed.length} ${failed
      .slice(0, 5)
      .map((f) => `#${f.id} ${f.detail ?? ""}`)
      .join("; ")}`,
  );
  check(lostResumable === 0, `resumable jobs ended LOST (they must be requeued): ${lostResumable}`);
  check(
    stuck.length === 0,
    `jobs not ended after ${DRAIN_S} s of drain: ${stuck.map((s) => `#${s.id} ${s.state} ${s.reason ?? ""}`).join("; ")}`,
  );
  check(overlap.length === 0, `jobs with overlapping run segments (all jobs): ${overlap.map((o) => o.jobId).join(", ")}`);
  check(twoAtOnce.size === 0, `jobs with two processes alive at once: ${[...twoAtOnce].join(", ")}`);
  check(startedTwice.length === 0, `runs (segments) started twice: ${startedTwice.join(", ")}`);
  check(
    shortRuns.length === 0,
    `finished runs recorded shorter than their 4 s sleep: ${shortRuns.map((r) => `${r.n} on ${r.node}`).join(", ")}`,
  );
  check(
    leaders.length <= secondWorkers,
    `second workers led only after the first was killed: ${leaders.length} takeovers for ${secondWorkers} kills`,
  );
  check(
    faults.every((f) => f.back !== null),
    `every service back after each fault`,
  );
  check(
    recoveryErrors.every((r) => r.after.length === 0),
    `no user errors after a service was back`,
  );
  check(platformExit === null, `the platform supervisor kept running`);
  const svc = services();
  const dead = Object.entries(svc)
    .filter(([, pid]) => !alive(pid))
    .map(([n]) => n);
  dead.push(...ownAgents.filter((a) => !a.proc || a.proc.exitCode !== null || a.proc.signalCode !== null).map((a) => a.node));
  check(dead.length === 0, `every service and agent alive at the end: ${dead.join(", ")}`);
  const crashes = [...outputs].flatMap(([n, ls]) =>
    ls.filter((l) => /Unhandled|uncaught|TypeError|ReferenceError/.test(l)).map((l) => `${n}: ${l}`),
  );
  check(crashes.length === 0, `no crash traces in any output: ${crashes.slice(0, 3).join(" | ")}`);
  const watchLogs = readdirSync(join(base, "agents"), { recursive: true }).filter((f) => String(f).endsWith("fence-watch.log"));
  console.log(`fence-watch logs     ${watchLogs.length} (${watchLogs.join(", ")})`);
  return problems.length ? 1 : 0;
}

let code = 1;
main()
  .then((c) => (code = c))
  .catch((e: unknown) => console.error(e))
  .finally(async () => {
    stopping = true;
    for (const a of ownAgents) a.proc?.kill("SIGKILL");
    if (platform && platformExit === null) platform.kill("SIGINT");
    for (let i = 0; i < 90 && platform && platformExit === null; i++) await sleep(500);
    for (const p of processes()) if (p.pid !== process.pid) signal(p.pid, "SIGKILL");
    if (!values.keep && existsSync(base)) rmSync(base, { recursive: true, force: true });
    process.exit(code);
  });
