import { randomUUID } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  AGENT_PROTOCOL_VERSION,
  agentErrorSchema,
  enrollResponseSchema,
  heartbeatResponseSchema,
  type HeartbeatRequestInput,
  type HeartbeatResponse,
  waitResponseSchema,
} from "@tranche/contracts";
import { FakeGpus, NvidiaSmi, type GpuSource } from "./gpus";
import { cgroupNotice, JobCgroups } from "./cgroup";
import { AGENT_PID_FILE, claimNodeFolder, type FenceWatchNode } from "./fence-watch";
import { jobIdsFor, type JobIdentity } from "./job-identity";
import { JobRunner } from "./runner";
import { sourceRelease } from "./release";

/**
 * Time between heartbeats while job output is left to upload: a node sends at most one beat's logs
 * (2 MiB) per second, so a job printing without pause cannot flood the control plane.
 */
export const LOG_CATCH_UP_MS = 1000;

/** SIGTERM to SIGKILL for job processes found at start that this agent has no record of (strays.ts). */
export const STRAY_GRACE_MS = 5000;

const RELEASE = sourceRelease();
/** What the agent reports: the package version, the protocol and, from a checkout, its release's commit. */
export const AGENT_VERSION = `tranche-agent/0.1.0 (protocol ${AGENT_PROTOCOL_VERSION}${RELEASE ? `, release ${RELEASE}` : ""})`;

export interface NodeAgentOptions {
  server: string;
  nodeName: string;
  /** This node's folder: credential, state.json, job logs. */
  dir: string;
  enrollmentToken: string | null;
  /** null = real GPUs through nvidia-smi. */
  fakeGpus: number | null;
  nvidiaSmi?: string;
  log: (line: string) => void;
  /** Heartbeat period before the server says otherwise (s). */
  heartbeatSec?: number;
  /** Long-poll /api/agent/v1/wait between heartbeats so a START arrives within about a second (default on). */
  longPoll?: boolean;
  /** Who jobs run as (default: the agent's own user). */
  identity?: JobIdentity;
  /** The shared checkpoint folder every node mounts (see RunnerOptions.checkpointRoot). */
  checkpointRoot?: string;
  /** Put each job in its own cgroup v2 where the host allows (default on). */
  cgroups?: boolean;
  /** Where the control plane reaches this node's interactive sessions (see RunnerOptions.sessionHost). */
  sessionHost?: string;
}

/**
 * One node's agent: enroll once (token -> credential, kept in `<dir>/credential`, mode 600), then
 * heartbeat: report inventory, health, busy %, job statuses, exits and new log bytes; obey the answer
 * (start these, stop those). Between heartbeats a 1 s tick launches jobs whose GPUs freed up, escalates
 * SIGTERM to SIGKILL and notices exits, which are reported at once. Alongside, a long-poll
 * (POST /wait, held up to 25 s by the server) returns as soon as the worker commits a start or stop
 * for this node, and the agent heartbeats at once to fetch it; a server without /wait leaves the
 * agent on heartbeats alone. Without an answer for the heartbeat timeout it stops its jobs (fencing).
 */
export class NodeAgent {
  private readonly runner: JobRunner;
  private readonly gpus: GpuSource;
  private credential: string | null = null;
  private intervalSec: number;
  private timer: NodeJS.Timeout | null = null;
  private ticker: NodeJS.Timeout | null = null;
  private inFlight = false;
  private again = false;
  /** The last beat left log output behind: the next one goes after LOG_CATCH_UP_MS. */
  private catchUp = false;
  private stopped = false;
  private lastError = "";
  /**
   * The one-time enrollment token, until the control plane refuses it: a refused token (used, expired,
   * for another node) never works again, and offering it at each refused heartbeat (a retired or revoked
   * node) logged two alternating lines every few seconds for ever.
   */
  private enrollmentToken: string | null;
  /** The `assignments` digest of the latest heartbeat response: what the long-poll waits to change. */
  private assignments: string | null = null;
  private polling = false;
  /** Made anew at each start: the server tells a restarted agent by it (a crash loop under one version). */
  private readonly startId = randomUUID();
  private pollAbort: AbortController | null = null;
  private beatWaiters: (() => void)[] = [];
  /** R9 fencing, as the control plane last said (defaults: SPEC's 30 s timeout, 10 s grace less the margin). */
  private fence = { afterSec: 30, graceSec: 8 };
  /** When the latest answered heartbeat was sent (ms); kept in `<dir>/contact.json` across restarts. */
  private lastContactAt: number;
  private fenced = false;
  state: string | null = null;
  heartbeats = 0;
  /** Long-polls answered with `changed` (tests and logs). */
  wakeups = 0;

  constructor(private readonly opts: NodeAgentOptions) {
    mkdirSync(opts.dir, { recursive: true });
    this.enrollmentToken = opts.enrollmentToken;
    const credPath = join(opts.dir, "credential");
    if (existsSync(credPath)) this.credential = readFileSync(credPath, "utf8").trim() || null;
    const identity = opts.identity ?? { kind: "agent" };
    this.runner = new JobRunner({
      dir: opts.dir,
      nodeName: opts.nodeName,
      log: (l) => opts.log(`[${opts.nodeName}] ${l}`),
      jobIds: (a) => jobIdsFor(identity, a.user ?? `job-${a.jobId}`),
      cgroups: opts.cgroups === false ? undefined : new JobCgroups(opts.nodeName),
      ...(opts.checkpointRoot ? { checkpointRoot: opts.checkpointRoot } : {}),
      ...(opts.sessionHost ? { sessionHost: opts.sessionHost } : {}),
    });
    this.runner.onExit = () => this.heartbeatSoon();
    const unhealthyFile = join(opts.dir, "unhealthy");
    this.gpus =
      opts.fakeGpus !== null
        ? new FakeGpus(opts.nodeName, opts.fakeGpus, () =>
            existsSync(unhealthyFile) ? readFileSync(unhealthyFile, "utf8").trim() || "marked unhealthy" : null,
          )
        : new NvidiaSmi(opts.nvidiaSmi);
    this.intervalSec = opts.heartbeatSec ?? 5;
    // A restarted agent counts silence from its predecessor's last answer: the control plane does.
    this.lastContactAt = Date.now();
    try {
      const c = JSON.parse(readFileSync(join(opts.dir, "contact.json"), "utf8")) as {
        at?: number;
        fence?: { afterSec: number; graceSec: number };
      };
      if (typeof c.at === "number" && c.at <= this.lastContactAt) this.lastContactAt = c.at;
      if (c.fence && c.fence.afterSec > 0 && c.fence.graceSec >= 0) this.fence = c.fence;
    } catch {
      // first start (or an older agent's folder)
    }
  }

  /**
   * R9 fencing: with no answer from the control plane for the heartbeat timeout, stop every job here
   * (SIGTERM, SIGKILL after the fence grace): the control plane declares this node DOWN and requeues
   * them only after timeout + grace, so a job never runs in two places at once.
   */
  private checkFence(now = Date.now()): void {
    if (this.fenced || now - this.lastContactAt <= this.fence.afterSec * 1000) return;
    this.fenced = true;
    const n = this.runner.fence(this.fence.graceSec * 1000);
    if (n > 0)
      this.log(
        `no answer from the control plane for ${Math.round((now - this.lastContactAt) / 1000)}s (heartbeat timeout ${this.fence.afterSec}s): stopping ${n} job${n === 1 ? "" : "s"} (SIGTERM, SIGKILL after ${this.fence.graceSec}s) so none runs twice once the control plane requeues them`,
      );
  }

  private noteContact(sentAt: number, fence: { afterSec: number; graceSec: number } | undefined): void {
    this.lastContactAt = Math.max(this.lastContactAt, sentAt);
    this.fenced = false;
    if (fence) this.fence = fence;
    try {
      const path = join(this.opts.dir, "contact.json");
      writeFileSync(`${path}.tmp`, JSON.stringify({ at: this.lastContactAt, fence: this.fence }), { mode: 0o600 });
      renameSync(`${path}.tmp`, path);
    } catch {
      // best effort: without it a restarted agent counts from its own start
    }
  }

  private log(line: string): void {
    this.opts.log(`[${this.opts.nodeName}] ${line}`);
  }

  /** What the fence watch needs to guard this node's jobs once this agent is gone (fence-watch.ts). */
  get watchedNode(): FenceWatchNode {
    return { name: this.opts.nodeName, dir: resolve(this.opts.dir), cgroupBase: this.runner.cgroupBase };
  }

  async start(initialDelayMs = 0): Promise<void> {
    // From now this agent guards the folder's jobs: a fence watch its predecessor left leaves them alone.
    try {
      claimNodeFolder(this.opts.dir);
    } catch (e) {
      this.log(`could not write ${AGENT_PID_FILE} (${(e as Error).message})`);
    }
    const notice = cgroupNotice(this.opts.cgroups !== false, this.runner.cgroupBase !== null);
    if (notice) this.log(notice);
    // Before the first report or launch: jobs a predecessor left running whose record is gone (a wiped
    // state folder) would run twice once the control plane requeues them. Adopted runs are kept.
    try {
      await this.runner.stopStrays(STRAY_GRACE_MS);
    } catch (e) {
      this.log(`could not look for job processes left from before this agent's state (${(e as Error).message})`);
    }
    if (this.stopped) return;
    this.ticker = setInterval(() => {
      try {
        this.checkFence();
        this.runner.tick();
      } catch (e) {
        this.logOnce(`tick failed (${(e as Error).message}); trying again in 1 s`);
      }
    }, 1000);
    this.timer = setTimeout(() => void this.beat(), initialDelayMs);
    if (this.opts.longPoll !== false) void this.pollLoop();
  }

  stop(): void {
    // Jobs keep running: a restarted agent adopts them.
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.ticker) clearInterval(this.ticker);
    this.pollAbort?.abort();
    for (const w of this.beatWaiters.splice(0)) w();
  }

  /** Resolves after the next heartbeat ends (or at stop). */
  private nextBeat(): Promise<void> {
    return new Promise((resolve) => this.beatWaiters.push(resolve));
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms).unref());
  }

  /**
   * The long-poll loop: while the agent holds a digest from a heartbeat, ask the server to hold a
   * request until this node's assignments change; when they do, heartbeat now (which brings the START
   * or stop order) and poll again with the new digest. Errors back off; a 404 (a server without the
   * long-poll) is retried rarely. Heartbeats go on at their own period regardless.
   */
  private async pollLoop(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    let failures = 0;
    while (!this.stopped) {
      if (!this.credential || this.assignments === null) {
        await this.nextBeat();
        continue;
      }
      this.pollAbort = new AbortController();
      try {
        const res = await fetch(`${this.opts.server}/api/agent/v1/wait`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${this.credential}` },
          body: JSON.stringify({ nodeName: this.opts.nodeName, assignments: this.assignments, timeoutSec: 25 }),
          signal: AbortSignal.any([this.pollAbort.signal, AbortSignal.timeout(35_000)]),
        });
        const json: unknown = await res.json().catch(() => null);
        if (this.stopped) break;
        if (res.status !== 200) {
          failures++;
          await this.sleep(res.status === 404 ? 60_000 : Math.min(30_000, 1000 * 2 ** Math.min(failures, 5)));
          continue;
        }
        failures = 0;
        if (waitResponseSchema.parse(json).changed) {
          this.wakeups++;
          const beat = this.nextBeat();
          this.heartbeatSoon();
          await beat;
        }
      } catch {
        if (this.stopped) break;
        failures++;
        await this.sleep(Math.min(30_000, 1000 * 2 ** Math.min(failures, 5)));
      }
    }
    this.polling = false;
  }

  private heartbeatSoon(): void {
    if (this.stopped) return;
    if (this.inFlight) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.beat(), 50);
  }

  private schedule(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    const delayMs = this.again ? 50 : this.catchUp ? Math.min(LOG_CATCH_UP_MS, this.intervalSec * 1000) : this.intervalSec * 1000;
    this.timer = setTimeout(() => void this.beat(), delayMs);
    this.again = false;
    this.catchUp = false;
  }

  private async post(route: string, body: unknown, auth: boolean): Promise<{ status: number; json: unknown }> {
    const res = await fetch(`${this.opts.server}/api/agent/v1/${route}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(auth && this.credential ? { authorization: `Bearer ${this.credential}` } : {}),
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = { error: { code: "BAD_REQUEST", message: text.slice(0, 200) } };
    }
    return { status: res.status, json };
  }

  private errorLine(json: unknown): string {
    const e = agentErrorSchema.safeParse(json);
    return e.success ? `${e.data.error.code}: ${e.data.error.message}` : JSON.stringify(json).slice(0, 200);
  }

  private async enroll(): Promise<boolean> {
    if (!this.enrollmentToken) {
      this.logOnce(
        "no node credential and no enrollment token: ask an operator for one (--enrollment-token, --enrollment-token-file, TRANCHE_ENROLLMENT_TOKEN or TRANCHE_ENROLLMENT_TOKEN_FILE)",
      );
      return false;
    }
    const probe = await this.gpus.probe(new Map());
    // Without GPUs the control plane refuses the enrollment as a malformed report ("a node needs at least
    // one GPU"), which hid why: say what the probe found wrong, and keep the one-time token unsent.
    if (probe.gpus.length === 0) {
      this.logOnce(
        `cannot enroll: no GPUs found (${probe.health.errors.join("; ") || "nvidia-smi lists none"}); on a host without GPUs, --fake-gpus N pretends to have N`,
      );
      return false;
    }
    const { status, json } = await this.post(
      "enroll",
      { token: this.enrollmentToken, nodeName: this.opts.nodeName, agentVersion: AGENT_VERSION, gpus: probe.gpus },
      false,
    );
    if (status !== 200) {
      this.logOnce(`enrollment refused (HTTP ${status}) ${this.errorLine(json)}`);
      if (status === 401) this.enrollmentToken = null;
      return false;
    }
    const r = enrollResponseSchema.parse(json);
    this.credential = r.credential;
    const path = join(this.opts.dir, "credential");
    writeFileSync(path, r.credential, { mode: 0o600 });
    chmodSync(path, 0o600);
    this.intervalSec = r.heartbeatIntervalSec;
    this.log(`enrolled in cluster ${r.cluster} as node ${r.nodeName}`);
    return true;
  }

  /**
   * `--enroll-only`: make sure this node holds a credential (enrolling with its token when it has none)
   * without heartbeating or running anything. True when it holds one afterwards.
   */
  async enrollOnly(): Promise<boolean> {
    if (this.credential) {
      this.log("already enrolled (a credential is stored); nothing to do");
      return true;
    }
    try {
      return await this.enroll();
    } catch (e) {
      this.log(`cannot reach the control plane at ${this.opts.server} (${(e as Error).message})`);
      return false;
    }
  }

  private logOnce(line: string): void {
    if (line !== this.lastError) this.log(line);
    this.lastError = line;
  }

  /** One heartbeat; public for tests. `final`: the last report of a stopping agent (its jobs' exits). */
  async beat(final = false): Promise<HeartbeatResponse | null> {
    if (this.stopped && !final) return null;
    this.inFlight = true;
    try {
      if (!this.credential && !(await this.enroll())) return null;
      this.runner.tick();
      const probe = await this.gpus.probe(this.runner.busyGpus());
      const logs = this.runner.pendingLogs();
      const sentAt = Date.now();
      const body: HeartbeatRequestInput = {
        nodeName: this.opts.nodeName,
        agentVersion: AGENT_VERSION,
        agentStartId: this.startId,
        sentAt: new Date(sentAt).toISOString(),
        health: probe.health,
        gpus: probe.gpus,
        busyPercent: probe.busyPercent,
        jobs: this.runner.reports().map((r) => (r.status === "EXITED" ? { ...r, logsDone: logs.drained.has(r.segmentId) } : r)),
        logs: logs.chunks,
      };
      const { status, json } = await this.post("heartbeat", body, true);
      if (status === 401) {
        // A refusal may come from another server (a mistyped --server, a proxy that points elsewhere)
        // as well as from a revocation, so the credential is kept and offered again each beat: deleting
        // it left no way back but a new token, and the node's jobs were stopped meanwhile. A token, when
        // the agent has one, enrolls it again, which replaces the credential.
        if (this.enrollmentToken) {
          this.logOnce(`heartbeat refused: ${this.errorLine(json)}; enrolling again with the enrollment token`);
          await this.enroll();
        } else
          this.logOnce(
            `heartbeat refused: ${this.errorLine(json)}; the stored credential is kept and tried again each heartbeat (check --server; if the node was revoked, restart the agent with a new enrollment token)`,
          );
        return null;
      }
      if (status !== 200) {
        // A 503 is the control plane's database away for a while (a restart, a stop), not a refusal.
        this.logOnce(
          status === 503
            ? `heartbeat not taken now (HTTP 503, the server is unavailable) ${this.errorLine(json)}; jobs keep running, next heartbeat tries again`
            : `heartbeat refused (HTTP ${status}) ${this.errorLine(json)}`,
        );
        return null;
      }
      const r = heartbeatResponseSchema.parse(json);
      this.noteContact(sentAt, r.fence);
      logs.commit();
      // Output left over (a job printing faster than one beat carries): the next beat goes soon, so
      // the web app is seconds behind, not minutes; each beat stays within its byte limits.
      if (logs.backlog) this.catchUp = true;
      this.heartbeats++;
      if (this.heartbeats % 200 === 0) this.runner.prune(3600_000);
      if (this.lastError) this.log("control plane reachable again");
      this.lastError = "";
      this.intervalSec = r.heartbeatIntervalSec;
      if (r.state !== this.state) this.log(`node state ${r.state}`);
      this.state = r.state;
      this.runner.forget(r.acknowledged);
      if (final) return r; // a stopping agent starts nothing
      this.runner.reconcile(r.run, r.stop, Date.parse(r.serverTime));
      this.assignments = r.assignments ?? null;
      return r;
    } catch (e) {
      this.logOnce(
        `cannot reach the control plane at ${this.opts.server} (${(e as Error).message}); jobs keep running, retrying`,
      );
      return null;
    } finally {
      this.inFlight = false;
      this.schedule();
      for (const w of this.beatWaiters.splice(0)) w();
    }
  }

  jobs() {
    return this.runner.list();
  }

  stopAllJobs(graceMs: number): Promise<void> {
    return this.runner.stopAll(graceMs);
  }
}
