import { spawn } from "node:child_process";
import pg from "pg";
import postgres from "postgres";
import { statementTimeouts, type PrismaClient } from "@tranche/db";
import {
  AGENTS_CHANNEL,
  LostLeadershipError,
  SCHEDULER_CHANNEL,
  agentWakePayloads,
  acquireOrRenewLease,
  applyCyclePlan,
  loadCycleInput,
  releaseLease,
  type CycleInput,
} from "@tranche/domain/runtime";
import { runCycle, type PolicyConfig } from "@tranche/scheduler-core";
import { atMost } from "./at-most";
import { StartForecaster, defaultForecastConfig, type ForecastConfig } from "./forecast";
import { cycleLine, runClusterCycle, type AgentNotifier, type CyclePorts, type CycleReport, type LoadedCycle } from "./cycle";

export interface WorkerConfig {
  databaseUrl: string;
  workerId: string;
  /** A cycle runs at least this often (ms), and sooner when woken by a NOTIFY. */
  intervalMs: number;
  /** Lease time to live (s); renewed every ttl/4. A standby takes over within ttl + 1 s. */
  leaseTtlSec: number;
  policy: Partial<PolicyConfig>;
  /** R8: a shell command run when a node becomes REPAIR (env TRANCHE_NODE_NAME, TRANCHE_NODE_ID). */
  repairHook?: string | null;
  /** R8: or a URL POSTed {node, nodeId} when a node becomes REPAIR. */
  repairWebhook?: string | null;
  log: (line: string) => void;
  /** Pending reasons rewritten per cycle beyond the new ones and the head of the queue (default 500). */
  reasonWriteCap?: number;
  newReasonWriteCap?: number;
  /** Charge running allocated segments to the usage ledger at most this often (default 10 s). */
  chargeEveryMs?: number;
  /** Test hook: called inside the apply transaction, after every write and before COMMIT. */
  beforeCommit?: () => Promise<void> | void;
  /** The start forecast's cadence and bounds (default: every minute, the first 500 of the order, 40 cycles). */
  forecast?: ForecastConfig;
  /** Test hook: called between decide and apply (e.g. to SIGKILL the worker mid-cycle). */
  beforeApply?: () => Promise<void> | void;
  /** PostgreSQL cancels a statement of the loader's pool that runs longer (createPrismaClient's too). */
  statementTimeoutMs?: number;
  /**
   * A cycle that has run longer than this (ms) stops the lease's renewal, so a standby takes over
   * (the stuck cycle's apply is then refused: it is lease-fenced), and calls onStuckCycle.
   */
  maxCycleMs?: number;
  /** Called once when a cycle outlives maxCycleMs (the worker process exits, and its supervisor starts a fresh one). */
  onStuckCycle?: (ms: number) => void;
}

type Extra = { input: CycleInput };

/**
 * The control loop: be the leader (lease), then cycle every cluster on a timer and whenever Postgres
 * NOTIFYs `tranche_jobs` (a job submitted, cancelled or finished, a node changed). Database errors
 * never kill the loop: it logs one line, backs off and retries, so a Postgres restart is survived.
 */
export class Worker {
  private stopping = false;
  private leader = false;
  private wakeResolve: (() => void) | null = null;
  /** Wall time of the last cycle over all clusters (paces woken cycles, see run()). */
  private lastCycleMs = 0;
  private woken = false;
  private listener: postgres.Sql | null = null;
  /** A small node-postgres pool for the loader's largest read (see RawQuery). */
  private readonly pool: pg.Pool;
  private renewTimer: NodeJS.Timeout | null = null;
  private lastError = "";
  /** Per cluster: when the usage ledger was last charged (ms). Charging runs at most every chargeEveryMs. */
  private readonly chargedAt = new Map<string, number>();
  private forecaster: StartForecaster | null = null;
  /** When the cycle in progress began (ms), null between cycles. */
  private cycleStartedAt: number | null = null;
  private stuck = false;
  cycles = 0;
  readonly reports: CycleReport[] = [];

  constructor(
    private readonly prisma: PrismaClient,
    private readonly config: WorkerConfig,
  ) {
    this.pool = new pg.Pool({
      connectionString: config.databaseUrl,
      max: 2,
      application_name: "tranche-worker-load",
      ...statementTimeouts(config.statementTimeoutMs),
    });
    this.pool.on("error", () => {}); // idle clients dropped by a Postgres restart: the pool reconnects
  }

  get isLeader(): boolean {
    return this.leader;
  }

  async start(): Promise<void> {
    this.listener = postgres(this.config.databaseUrl, {
      max: 1,
      onnotice: () => {},
      connection: { application_name: "tranche-worker-listen" },
    });
    // postgres.js re-listens by itself after a reconnect.
    void this.listener
      .listen(SCHEDULER_CHANNEL, () => this.wake())
      .catch((e: unknown) =>
        this.config.log(`LISTEN ${SCHEDULER_CHANNEL} failed (${(e as Error).message}); relying on the timer`),
      );
    const renewEvery = Math.max(500, (this.config.leaseTtlSec * 1000) / 4);
    this.renewTimer = setInterval(() => void this.renew(), renewEvery);
    await this.renew();
  }

  wake(): void {
    this.woken = true;
    this.wakeResolve?.();
  }

  private async renew(): Promise<void> {
    if (this.stopping || this.stuckCycle()) return;
    try {
      const held = await acquireOrRenewLease(this.prisma, this.config.workerId, this.config.leaseTtlSec);
      if (held && !this.leader) {
        this.config.log(`worker ${this.config.workerId} is now the leader`);
        this.wake();
      }
      if (!held && this.leader) this.config.log(`worker ${this.config.workerId} lost the lease; standing by`);
      this.leader = held;
      this.clearError("lease");
    } catch (e) {
      if (this.leader) this.config.log(`cannot renew the lease (${oneLine(e)}); standing by until the database answers`);
      this.leader = false;
      this.noteError("lease", e);
    }
  }

  /**
   * Whether the cycle in progress has outlived maxCycleMs. A cycle waits on the database, which the
   * statement timeout bounds; one that still does not end is stuck somewhere no timeout reaches, and
   * a leader that keeps renewing its lease meanwhile would keep a standby out for good.
   */
  private stuckCycle(): boolean {
    const max = this.config.maxCycleMs;
    if (this.stuck) return true;
    if (max === undefined || this.cycleStartedAt === null) return false;
    const ms = Date.now() - this.cycleStartedAt;
    if (ms <= max) return false;
    this.stuck = true;
    this.leader = false;
    this.config.log(
      `cycle running for ${Math.round(ms / 1000)} s (limit ${Math.round(max / 1000)} s): no longer renewing the lease, so a standby takes over`,
    );
    this.config.onStuckCycle?.(ms);
    return true;
  }

  private noteError(where: string, e: unknown): void {
    const msg = `${where}: ${oneLine(e)}`;
    if (msg !== this.lastError) this.config.log(`database error in ${msg}; retrying`);
    this.lastError = msg;
  }

  private clearError(where: string): void {
    if (this.lastError.startsWith(where)) {
      this.config.log(`database reachable again (${where})`);
      this.lastError = "";
    }
  }

  /** Runs until stop(). */
  async run(): Promise<void> {
    while (!this.stopping) {
      if (this.leader) {
        this.woken = false;
        const t0 = Date.now();
        this.cycleStartedAt = t0;
        try {
          await this.cycleAll();
          this.lastCycleMs = Date.now() - t0;
          this.clearError("cycle");
        } catch (e) {
          if (e instanceof LostLeadershipError) {
            this.leader = false;
            this.config.log(e.message);
          } else this.noteError("cycle", e);
          await this.sleep(1000);
          continue;
        } finally {
          this.cycleStartedAt = null;
          this.stuck = false;
        }
      }
      if (this.woken) {
        // Coalesce bursts of notifications (a batch of submissions) into one cycle, and under a steady
        // stream rest as long as the last cycle took: the worker then uses at most half a core, and the
        // web process and Postgres on the same host keep answering (a 10,000-pending cycle is ~0.5 s).
        // Never longer than the timer's interval, though: this rest cannot be woken, and after a cycle
        // held for minutes (a slow query) the leader sat as many minutes more renewing its lease.
        await this.sleep(Math.min(Math.max(100, this.lastCycleMs), this.config.intervalMs), false);
        continue;
      }
      await this.sleep(this.leader ? this.config.intervalMs : 1000);
    }
  }

  private sleep(ms: number, wakeable = true): Promise<void> {
    return new Promise<void>((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        resolve();
      }
      if (wakeable) this.wakeResolve = done;
    }).then(() => {
      this.wakeResolve = null;
    });
  }

  private async clusterIds(): Promise<string[]> {
    return (await this.prisma.cluster.findMany({ select: { id: true }, orderBy: { name: "asc" } })).map((c) => c.id);
  }

  async cycleAll(): Promise<CycleReport[]> {
    const out: CycleReport[] = [];
    for (const clusterId of await this.clusterIds()) {
      if (this.stopping || !this.leader) break;
      const report = await runClusterCycle(this.ports(), clusterId);
      this.cycles++;
      out.push(report);
      this.reports.push(report);
      if (this.reports.length > 1000) this.reports.splice(0, this.reports.length - 1000);
      if (report.started + report.preempted + report.lost + report.killed > 0) this.config.log(cycleLine(report));
    }
    return out;
  }

  ports(): CyclePorts<Extra> {
    const { prisma, config } = this;
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    const notifier: AgentNotifier = {
      wake: async (nodeIds) => {
        // Agents long-polling /api/agent/v1/wait for these nodes heartbeat at once. Payloads stay under
        // PostgreSQL's 8,000-byte limit (a cold cycle touches ~1,000 nodes), all sent in one statement.
        const payloads = agentWakePayloads(nodeIds);
        await prisma.$executeRaw`SELECT pg_notify(${AGENTS_CHANNEL}, p) FROM unnest(${payloads}::text[]) AS p`;
      },
      repair: async (nodes) => {
        for (const n of nodes) runRepairHook(config, n);
      },
    };
    return {
      clock: () => Math.floor(Date.now() / 1000),
      source: {
        load: async (clusterId, now): Promise<LoadedCycle<Extra>> => {
          const input = await loadCycleInput(prisma, clusterId, now, config.policy, (text, params) =>
            self.pool.query(text, params),
          );
          return { snapshot: input.snapshot, policy: input.policy, now, extra: { input } };
        },
      },
      // The stateless form: every load builds new objects from Postgres (and may bring a new policy),
      // so a createScheduler's kept state would fail its checks and be rebuilt every cycle anyway.
      decide: runCycle,
      applier: {
        apply: async (loaded, result, timings) => {
          if (config.beforeApply) await config.beforeApply();
          const clusterId = loaded.snapshot.cluster.id;
          const charge = Date.now() - (self.chargedAt.get(clusterId) ?? 0) >= (config.chargeEveryMs ?? 10_000);
          const a = await applyCyclePlan(prisma, loaded.extra.input, result, config.workerId, timings, {
            reasonWriteCap: config.reasonWriteCap ?? 500,
            newReasonWriteCap: config.newReasonWriteCap ?? 2500,
            charge,
            repairHookConfigured: !!(config.repairHook || config.repairWebhook),
            beforeCommit: result.plan.some((o) => o.op === "START") ? config.beforeCommit : undefined,
          });
          if (charge) self.chargedAt.set(clusterId, Date.now());
          return { ...a, cycleId: String(a.cycleId) };
        },
      },
      agents: notifier,
      // Off the loop: the cycle writes the forecast its cluster's last one computed and starts the next.
      forecast: async (loaded) => {
        const f = (self.forecaster ??= new StartForecaster(prisma, config.forecast ?? defaultForecastConfig));
        try {
          await f.afterCycle(loaded.snapshot, loaded.policy, loaded.now, Date.now(), config.log, loaded.extra.input.revisions);
        } catch (e) {
          config.log(`start forecast for cluster ${loaded.snapshot.cluster.name} failed: ${(e as Error).message}`);
        }
      },
    };
  }

  /**
   * Stops within about 1.5 s whatever became of the database. Releasing the lease only lets a standby
   * take over at once rather than when it runs out, and a server gone silent (a frozen host, one dropped
   * from the network) never answers it: waiting for it held a stopped worker for minutes.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wakeResolve?.();
    if (this.renewTimer) clearInterval(this.renewTimer);
    if (this.leader) await atMost(1000, releaseLease(this.prisma, this.config.workerId));
    this.leader = false;
    // Its forecast thread is unref'd, but a stopped worker (a test's, a standby's) must not leave it running.
    // The pool's end waits for a query in flight, which only its timeout (a minute) ends.
    await atMost(500, Promise.allSettled([this.listener?.end({ timeout: 0.5 }), this.pool.end(), this.forecaster?.close()]));
  }
}

function runRepairHook(config: WorkerConfig, node: { id: string; name: string }): void {
  if (config.repairHook) {
    const child = spawn("/bin/sh", ["-c", config.repairHook], {
      env: { ...process.env, TRANCHE_NODE_NAME: node.name, TRANCHE_NODE_ID: node.id },
      stdio: "ignore",
      detached: true,
    });
    child.on("error", (e) => config.log(`repair hook for ${node.name} failed to start: ${e.message}`));
    child.on("exit", (code) => config.log(`repair hook for ${node.name} exited with ${code}`));
    child.unref();
  }
  if (config.repairWebhook) {
    fetch(config.repairWebhook, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ node: node.name, nodeId: node.id, state: "REPAIR" }),
      signal: AbortSignal.timeout(10_000),
    }).then(
      (r) => config.log(`repair webhook for ${node.name}: HTTP ${r.status}`),
      (e: unknown) => config.log(`repair webhook for ${node.name} failed: ${oneLine(e)}`),
    );
  }
}

export function oneLine(e: unknown): string {
  const err = e as { message?: string; code?: string };
  return `${err.code ? `${err.code} ` : ""}${
    String(err.message ?? e)
      .split("\n")
      .filter(Boolean)
      .slice(-1)[0] ?? ""
  }`.slice(0, 300);
}
