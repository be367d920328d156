// Fault suite (issue 15), SIGKILLing the worker, an agent, Postgres and the web app under submissions. The
// real platform (scripts/platform.ts, as `npm start` runs it after its build, demo world with fake agents)
// takes a stream of REST batch submissions while each of those is killed three times at seeded random moments.
// Prints, per service, the recovery time after each kill, then counts from the database and the process
// table: jobs duplicated, jobs lost, jobs ended FAILED by a platform fault, and whether the platform stopped.
//
//   npx turbo run build && node --import tsx bench/fault-suite.bench.ts [--seed 15] [--kills 3] [--window 240]
//
// PORT (default 3409) and TRANCHE_PG_PORT (default 55419) pick its ports; its data lives in a fresh
// folder under /tmp, removed at the end. Needs the web app built (apps/web/.next). A figure, not a test.
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { oneShotQuery } from "./support/one-shot-query";
import { createPrismaClient } from "@tranche/db";
import { DEMO_CLUSTERS, embeddedDatabaseUrl, portIsFree, repoRoot } from "@tranche/db/setup";
import { createApiToken } from "@tranche/domain";
import { mulberry32 } from "./support/prng";

const { values } = parseArgs({
  options: { seed: { type: "string" }, kills: { type: "string" }, window: { type: "string" } },
});
const SEED = Number(values.seed ?? 15);
const KILLS = Number(values.kills ?? 3);
/** Seconds the submissions and kills may last; kills not done by then are skipped (and said so). */
const WINDOW_S = Number(values.window ?? 240);
const DRAIN_S = 90;
const RECOVERY_LIMIT_S = 45;
const PORT = Number(process.env.PORT ?? 3409);
const PG_PORT = Number(process.env.TRANCHE_PG_PORT ?? 55419);
const HOST = "127.0.0.1";
const WEB = `http://${HOST}:${PORT}`;
const ROOT = repoRoot();
const SERVICES = ["worker", "agent", "postgres", "web"] as const;
type Target = (typeof SERVICES)[number];

const rand = mulberry32(SEED);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const secs = (ms: number) => (ms / 1000).toFixed(1);
const log = (l: string) => console.log(`[fault ${secs(Date.now() - T0).padStart(6)} s] ${l}`);
const T0 = Date.now();

const base = mkdtempSync(join(tmpdir(), "tranche-fault-"));
chmodSync(base, 0o755); // the embedded PostgreSQL may run as the 'postgres' user, who must enter it
const dataDir = join(base, "postgres");
const runDir = join(base, "run");
const RUN_ID = base.split("-").pop()!;

// ---- small helpers that survive a dead database or web app ----

let dbUrl = "";
const query = <T>(sql: string, params: unknown[] = []) => oneShotQuery<T>(dbUrl, sql, params, 5000);
const tryQuery = <T>(sql: string, params: unknown[] = []) => query<T>(sql, params).catch(() => null);

async function healthy(): Promise<boolean> {
  try {
    const r = await fetch(`${WEB}/api/health`, { signal: AbortSignal.timeout(3000) });
    await r.arrayBuffer();
    return r.status === 200;
  } catch {
    return false;
  }
}

function runFile(): { supervisor: number; services: Record<string, number> } | null {
  try {
    return JSON.parse(readFileSync(join(runDir, "platform.json"), "utf8"));
  } catch {
    return null;
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

/** Every process carrying this run's marker in its environment (the platform's services and their jobs). */
function processes(): { pid: number; ppid: number; env: Map<string, string>; cmd: string }[] {
  const out = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const raw = readFileSync(`/proc/${d}/environ`, "utf8");
      if (!raw.includes(base) && !raw.includes(`FAULT_SUITE_RUN=${RUN_ID}`)) continue;
      const env = new Map(raw.split("\0").map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const cmd = readFileSync(`/proc/${d}/cmdline`, "utf8").replace(/\0/g, " ").trim().slice(0, 120);
      out.push({ pid: Number(d), ppid, env, cmd });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return out;
}

// ---- the platform ----

let platform: ChildProcess;
let platformExited: string | null = null;
let stoppingPlatform = false;
const platformOut: string[] = [];

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
      // A light demo load, so our short jobs find GPUs within the run.
      TRANCHE_DEMO_DEMAND: "0.5",
      NEXT_TELEMETRY_DISABLED: "1",
      DATABASE_URL: "",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const keep = (d: Buffer) => {
    for (const l of d.toString().split("\n"))
      if (l.trim()) {
        platformOut.push(l);
        if (/^•|exited|restart|PostgreSQL/.test(l)) log(`platform: ${l}`);
      }
  };
  platform.stdout!.on("data", keep);
  platform.stderr!.on("data", keep);
  platform.on("exit", (code, sig) => {
    platformExited = `${code ?? sig}`;
    if (!stoppingPlatform) log(`the platform supervisor EXITED (${platformExited})`);
  });
  const deadline = Date.now() + 240_000;
  while (!platformOut.some((l) => l.includes("Tranche is running"))) {
    if (platformExited !== null) throw new Error(`the platform exited during start:\n${platformOut.slice(-30).join("\n")}`);
    if (Date.now() > deadline) throw new Error(`the platform was not ready in 240 s:\n${platformOut.slice(-30).join("\n")}`);
    await sleep(500);
  }
  const password = readFileSync(`${dataDir}.password`, "utf8").trim();
  dbUrl = embeddedDatabaseUrl(PG_PORT, password);
}

function pidOf(t: Target): { pid: number; label: string } | null {
  if (t === "postgres") {
    const pid = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    return pid > 0 ? { pid, label: "postmaster" } : null;
  }
  const services = runFile()?.services ?? {};
  const name = t === "agent" ? pick(Object.keys(services).filter((n) => n.startsWith("agents-"))) : t;
  const pid = name ? services[name] : undefined;
  return pid ? { pid, label: name! } : null;
}
const pick = <T>(xs: T[]): T | undefined => xs[Math.floor(rand() * xs.length)];

// ---- recovery probes: resolve true once the service answers again after `since` ----

async function recovered(t: Target, since: Date, label: string, oldPid: number): Promise<boolean> {
  if (t === "web") return (runFile()?.services.web ?? oldPid) !== oldPid && (await healthy());
  if (t === "postgres") return (await tryQuery("SELECT 1")) !== null;
  if (t === "worker") {
    const r = await tryQuery<{ n: number }>(
      `SELECT count(*)::int AS n FROM worker_lease WHERE "lastCycleAt" > $1 AND "expiresAt" > now()`,
      [since],
    );
    return (r?.[0]?.n ?? 0) > 0;
  }
  const cluster = DEMO_CLUSTERS.find((c) => `agents-${c.name}` === label)!;
  const r = await tryQuery<{ n: number }>(`SELECT count(*)::int AS n FROM node WHERE name LIKE $1 AND "lastHeartbeatAt" > $2`, [
    `${cluster.name}-%`,
    since,
  ]);
  return (r?.[0]?.n ?? 0) >= cluster.nodes;
}

interface Kill {
  target: Target;
  label: string;
  atS: number;
  recoveryS: number | null;
  /** our jobs running when it was killed (for an agent: on its nodes) */
  running: number;
}

/** Our jobs with an open run segment, on the nodes named `prefix*` when given. */
async function runningJobs(prefix?: string): Promise<number> {
  const r = await tryQuery<{ n: number }>(
    `SELECT count(DISTINCT s."jobId")::int AS n FROM run_segment s JOIN job j ON j.id = s."jobId"
     JOIN segment_placement p ON p."segmentId" = s.id JOIN node n ON n.id = p."nodeId"
     WHERE s."endedAt" IS NULL AND j.name LIKE $1 AND n.name LIKE $2`,
    [`fault-${RUN_ID}-%`, `${prefix ?? ""}%`],
  );
  return r?.[0]?.n ?? 0;
}

async function killOnce(t: Target): Promise<Kill | null> {
  const p = pidOf(t);
  if (!p || !alive(p.pid)) {
    log(`no live ${t} process to kill (pid ${p?.pid ?? "?"}); skipped`);
    return null;
  }
  const running = await runningJobs(t === "agent" ? `${p.label.slice("agents-".length)}-` : undefined);
  const since = new Date();
  process.kill(p.pid, "SIGKILL");
  const at = Date.now();
  log(`SIGKILL ${p.label} (pid ${p.pid}); ${running} of our jobs running${t === "agent" ? " on its nodes" : ""}`);
  while (Date.now() - at < RECOVERY_LIMIT_S * 1000) {
    await sleep(250);
    if (await recovered(t, since, p.label, p.pid)) {
      const s = (Date.now() - at) / 1000;
      log(`${p.label} answers again after ${s.toFixed(1)} s`);
      return { target: t, label: p.label, atS: (at - T0) / 1000, recoveryS: s, running };
    }
  }
  log(`${p.label} did NOT answer within ${RECOVERY_LIMIT_S} s`);
  return { target: t, label: p.label, atS: (at - T0) / 1000, recoveryS: null, running };
}

// ---- the submission stream ----

interface Submitted {
  key: string;
  id: number | null;
}
const submitted: Submitted[] = [];
let refusedBatches = 0;
let failedRequests = 0;

async function submitStream(token: string, until: () => boolean): Promise<void> {
  for (let b = 0; b < 200 && !until(); b++) {
    const jobs = Array.from({ length: 6 }, (_, i) => {
      const key = `fault-${RUN_ID}-${b}-${i}`;
      return {
        cluster: rand() < 0.5 ? "h100" : "b200",
        budget: "lab/language/pretraining",
        gpus: rand() < 0.7 ? 1 : 2,
        minRuntime: 900,
        resumable: rand() < 0.5,
        command: `sleep ${5 + Math.floor(rand() * 16)}`,
        env: { FAULT_SUITE_RUN: RUN_ID },
        name: key,
        idempotencyKey: key,
      };
    });
    // The same keys are sent again until one answer comes back: a retry never makes a second job.
    for (let attempt = 0; attempt < 8 && !until(); attempt++) {
      try {
        const res = await fetch(`${WEB}/api/v1/jobs/batch`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          body: JSON.stringify({ jobs }),
          signal: AbortSignal.timeout(15_000),
        });
        const body = (await res.json().catch(() => null)) as { jobs?: { id: number }[] } | null;
        if (res.status === 201 || res.status === 200) {
          jobs.forEach((j, i) => submitted.push({ key: j.idempotencyKey, id: body?.jobs?.[i]?.id ?? null }));
          break;
        }
        refusedBatches++;
        if (refusedBatches <= 3) log(`batch refused: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
        if (res.status < 500) break;
      } catch {
        failedRequests++;
      }
      await sleep(2000);
    }
    await sleep(3000 + rand() * 3000);
  }
}

/** Root processes (the job wrapper) alive per job, sampled: two at once for one job is a duplicate. */
const duplicateProcesses = new Set<number>();
/** Jobs whose process the sampler saw at least once (shows it sees them at all). */
const jobsSeenRunning = new Set<number>();
function sampleJobProcesses(): void {
  const mine = processes().filter((p) => p.env.get("FAULT_SUITE_RUN") === RUN_ID);
  const pids = new Set(mine.map((p) => p.pid));
  const roots = new Map<number, Set<string>>();
  for (const p of mine.filter((p) => !pids.has(p.ppid))) {
    const job = Number(p.env.get("TRANCHE_JOB_ID"));
    roots.set(job, (roots.get(job) ?? new Set()).add(`${p.pid}`));
    jobsSeenRunning.add(job);
  }
  for (const [job, set] of roots) if (set.size > 1) duplicateProcesses.add(job);
}

// ---- main ----

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : NaN;
};

async function main(): Promise<void> {
  log(`data in ${base}; web ${WEB}; Postgres on ${PG_PORT}; seed ${SEED}`);
  await startPlatform();
  const ready = Date.now();
  const platformProcs = processes().length;
  log(`platform ready after ${secs(ready - T0)} s (${platformProcs} processes)`);

  const prisma = createPrismaClient(dbUrl, { max: 1 });
  const ada = await prisma.user.findUniqueOrThrow({ where: { email: "ada@tranche.example" } });
  const { token } = await createApiToken(
    prisma,
    { id: ada.id, email: ada.email, name: ada.name, role: ada.role },
    { name: "fault-suite" },
  );
  await prisma.$disconnect();

  const windowEnd = Date.now() + WINDOW_S * 1000;
  let submitting = true;
  const stream = submitStream(token, () => !submitting || Date.now() > windowEnd);
  let sampling = true;
  const sampler = (async () => {
    for (let i = 0; i < 2000 && sampling; i++) {
      sampleJobProcesses();
      await sleep(1000);
    }
  })();

  // Kill order: each service KILLS times, shuffled; a few random seconds of calm between kills.
  const order: Target[] = SERVICES.flatMap((s) => Array.from({ length: KILLS }, () => s));
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const kills: Kill[] = [];
  let skipped = 0;
  await sleep(10_000);
  for (const t of order) {
    if (Date.now() > windowEnd - 15_000 || platformExited !== null) {
      skipped++;
      continue;
    }
    const k = await killOnce(t);
    if (k) kills.push(k);
    else skipped++;
    await sleep(3000 + rand() * 7000);
  }
  // The kills are done: stop submitting, then drain.
  submitting = false;
  await stream;
  const drainStart = Date.now();
  const ids = submitted.map((s) => s.id).filter((x): x is number => x !== null);
  log(`submitted ${submitted.length} jobs (${failedRequests} requests failed and were retried); draining up to ${DRAIN_S} s`);
  while (Date.now() - drainStart < DRAIN_S * 1000) {
    const r = await tryQuery<{ n: number }>(
      `SELECT count(*)::int AS n FROM job WHERE id = ANY($1) AND state NOT IN ('COMPLETED','FAILED','PREEMPTED','CANCELLED','KILLED','LOST')`,
      [ids],
    );
    if (r && r[0]!.n === 0) break;
    await sleep(2000);
  }
  const drainS = (Date.now() - drainStart) / 1000;
  sampling = false;
  await sampler;

  // ---- counts from the database ----
  const states = (await query<{ state: string; n: number }>(
    `SELECT state, count(*)::int AS n FROM job WHERE id = ANY($1) GROUP BY state ORDER BY state`,
    [ids],
  )) as { state: string; n: number }[];
  const found = states.reduce((a, s) => a + s.n, 0);
  const stuck = states.filter((s) => !["COMPLETED", "FAILED", "PREEMPTED", "CANCELLED", "KILLED", "LOST"].includes(s.state));
  const lostJobs = ids.length - found + stuck.reduce((a, s) => a + s.n, 0) + (submitted.length - ids.length);
  const overlap = await query<{ jobId: number }>(
    `SELECT DISTINCT a."jobId" FROM run_segment a JOIN run_segment b ON a."jobId" = b."jobId" AND a.id < b.id
     WHERE a."jobId" = ANY($1)
       AND tstzrange(a."startedAt", coalesce(a."endedAt", 'infinity')) && tstzrange(b."startedAt", coalesce(b."endedAt", 'infinity'))`,
    [ids],
  );
  const failed = await query<{ id: number; exitCode: number | null; exitSignal: string | null; detail: string | null }>(
    `SELECT j.id, j."exitCode", j."exitSignal",
            (SELECT s."endDetail" FROM run_segment s WHERE s."jobId" = j.id ORDER BY s.id DESC LIMIT 1) AS detail
     FROM job j WHERE j.id = ANY($1) AND j.state = 'FAILED'`,
    [ids],
  );
  const requeued = await query<{ n: number }>(`SELECT count(*)::int AS n FROM job WHERE id = ANY($1) AND "requeueCount" > 0`, [
    ids,
  ]);
  const unacked = await query<{ n: number }>(`SELECT count(*)::int AS n FROM job WHERE name LIKE $1 AND NOT (id = ANY($2))`, [
    `fault-${RUN_ID}-%`,
    ids,
  ]);
  const duplicated = new Set([...overlap.map((r) => r.jobId), ...duplicateProcesses]);

  // ---- stop the platform; nothing may be left behind ----
  const platformStopped = platformExited !== null;
  stoppingPlatform = true;
  platform.kill("SIGINT");
  const stopAt = Date.now();
  while (platformExited === null && Date.now() - stopAt < 45_000) await sleep(250);
  const stopS = (Date.now() - stopAt) / 1000;
  await sleep(1000);
  const left = processes().filter((p) => p.pid !== process.pid);
  // Postgres rewrites its process title over its environment, so its ports are checked as well.
  const busyPorts = [];
  for (const port of [PORT, PG_PORT]) if (!(await portIsFree(port))) busyPorts.push(port);
  for (const p of left) {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }

  // ---- the table ----
  console.log(`\nFault suite (seed ${SEED}): SIGKILL x${KILLS} per service under a stream of REST batch submissions\n`);
  console.log(
    `${"service".padEnd(10)} ${"kills".padStart(5)} ${"recovery median".padStart(16)} ${"max".padStart(7)}  each (s): name@second-of-run:recovery [our jobs running]`,
  );
  for (const s of SERVICES) {
    const ks = kills.filter((k) => k.target === s);
    const rs = ks.map((k) => k.recoveryS).filter((x): x is number => x !== null);
    const notBack = ks.length - rs.length;
    console.log(
      `${s.padEnd(10)} ${String(ks.length).padStart(5)} ${(rs.length ? median(rs).toFixed(1) + " s" : "-").padStart(16)} ${(rs.length ? Math.max(...rs).toFixed(1) + " s" : "-").padStart(7)}  ` +
        ks
          .map(
            (k) =>
              `${k.label}@${k.atS.toFixed(0)}:${k.recoveryS === null ? `>${RECOVERY_LIMIT_S}` : k.recoveryS.toFixed(1)} [${k.running}]`,
          )
          .join(" ") +
        (notBack ? `  (${notBack} not back within ${RECOVERY_LIMIT_S} s)` : ""),
    );
  }
  if (skipped) console.log(`(${skipped} kill(s) skipped: the window ended or no live process)`);
  console.log(
    `\njobs submitted (acknowledged)       ${submitted.length}  (retried with the same keys: ${failedRequests} requests without an answer, ${refusedBatches} answered an error; ${unacked[0]!.n} created but unacknowledged)`,
  );
  console.log(`final states                        ${states.map((s) => `${s.state} ${s.n}`).join(", ")}`);
  console.log(`requeued at least once              ${requeued[0]!.n}`);
  console.log(`jobs whose process was seen         ${jobsSeenRunning.size}  (sampled every second from /proc)`);
  console.log(
    `jobs duplicated                     ${duplicated.size}  (${overlap.length} with overlapping run segments, ${duplicateProcesses.size} with two job processes alive at once)`,
  );
  console.log(
    `jobs lost (missing or stuck)        ${lostJobs}  (stuck after ${drainS.toFixed(0)} s of drain: ${stuck.map((s) => `${s.state} ${s.n}`).join(", ") || "none"})`,
  );
  console.log(`jobs FAILED by a platform fault     ${failed.length}  (every job's command exits 0)`);
  for (const f of failed.slice(0, 10))
    console.log(`    job ${f.id}: exit ${f.exitCode ?? "-"} ${f.exitSignal ?? ""} ${f.detail ?? ""}`);
  console.log(`platform stopped by a service death ${platformStopped ? `YES (supervisor exited ${platformExited})` : "no"}`);
  console.log(
    `stop (SIGINT)                       ${platformExited !== null ? `${stopS.toFixed(1)} s` : "did NOT exit in 45 s"}; processes left behind: ${left.length} (of ${platformProcs} at start); ports still open: ${busyPorts.join(", ") || "none"}${left.length ? ` (${left.map((p) => p.cmd.slice(0, 60)).join("; ")})` : ""}`,
  );
  console.log(`whole run                           ${secs(Date.now() - T0)} s (start ${secs(ready - T0)} s)`);
}

let exitCode = 0;
main()
  .catch((e: unknown) => {
    console.error(e);
    exitCode = 1;
    if (platform && platformExited === null) {
      stoppingPlatform = true;
      platform.kill("SIGINT");
    }
  })
  .finally(async () => {
    for (let i = 0; i < 60 && platform && platformExited === null; i++) await sleep(500);
    for (const p of processes().filter((p) => p.pid !== process.pid)) {
      try {
        process.kill(p.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    if (existsSync(base)) rmSync(base, { recursive: true, force: true });
    process.exit(exitCode);
  });
