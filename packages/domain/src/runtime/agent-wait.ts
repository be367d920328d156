import { createHash } from "node:crypto";
import pg from "pg";
import type { RunAssignment, StopOrder } from "@tranche/contracts";

/** The worker NOTIFYs this channel after a cycle commits, with a JSON array of the node ids it touched. */
export const AGENTS_CHANNEL = "tranche_agents";
/** PostgreSQL refuses NOTIFY payloads of 8,000 bytes or more. */
const MAX_PAYLOAD = 7_900;

/** Digest of a node's assignments as the database has them (what to run, what to stop and when). */
export function assignmentsDigest(run: RunAssignment[], stop: StopOrder[]): string {
  const parts = [
    ...run.map((r) => `r${r.segmentId}@${r.startBy}`),
    ...stop.map((s) => `s${s.segmentId}:${s.reason}@${s.graceUntil}`),
  ].sort();
  return createHash("sha256").update(parts.join(",")).digest("base64url").slice(0, 22);
}

/**
 * `pg_notify` payloads for a list of node ids: JSON arrays, each under PostgreSQL's 8,000-byte limit
 * (a cold cycle starting ~1,000 jobs touches ~1,000 nodes: ~28 KB of ids).
 */
export function agentWakePayloads(nodeIds: string[]): string[] {
  const out: string[] = [];
  let batch: string[] = [];
  let size = 2;
  for (const id of nodeIds) {
    const add = JSON.stringify(id).length + 1;
    if (batch.length > 0 && size + add > MAX_PAYLOAD) {
      out.push(JSON.stringify(batch));
      batch = [];
      size = 2;
    }
    batch.push(id);
    size += add;
  }
  if (batch.length > 0) out.push(JSON.stringify(batch));
  return out;
}

/**
 * One LISTEN connection per server process, fanning `tranche_agents` notifications out to the agents'
 * long-polls (POST /api/agent/v1/wait) waiting for their node. If the connection drops, every waiter
 * is released (its agent heartbeats, then polls again) and the next wait reconnects.
 */
export class AgentWakeups {
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(private readonly databaseUrl: string) {}

  /** Connected and listening (connects on first use). */
  ready(): Promise<void> {
    if (this.client) return Promise.resolve();
    if (this.connecting) return this.connecting;
    const client = new pg.Client({ connectionString: this.databaseUrl, application_name: "tranche-agent-wait" });
    const lost = () => {
      if (this.client === client) this.client = null;
      this.releaseAll();
    };
    client.on("error", lost);
    client.on("end", lost);
    client.on("notification", (n) => this.dispatch(n.payload));
    this.connecting = client
      .connect()
      .then(() => client.query(`LISTEN ${AGENTS_CHANNEL}`))
      .then(
        () => {
          this.client = client;
          this.connecting = null;
        },
        (e: unknown) => {
          this.connecting = null;
          void client.end().catch(() => undefined);
          throw e;
        },
      );
    return this.connecting;
  }

  /**
   * Register interest in `nodeId` now (before reading the database, so no notification slips between
   * the read and the wait). `woken` resolves true when the node is notified, false at the timeout or abort.
   */
  register(nodeId: string, timeoutMs: number, signal?: AbortSignal): { woken: Promise<boolean>; cancel: () => void } {
    let finish!: (v: boolean) => void;
    const woken = new Promise<boolean>((resolve) => (finish = resolve));
    const set = this.waiters.get(nodeId) ?? new Set<() => void>();
    this.waiters.set(nodeId, set);
    const done = (v: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      set.delete(wake);
      if (set.size === 0 && this.waiters.get(nodeId) === set) this.waiters.delete(nodeId);
      finish(v);
    };
    const wake = () => done(true);
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(false), timeoutMs);
    set.add(wake);
    // An abort that came first (the server is stopping) fires no event: answer at once.
    if (signal?.aborted) done(false);
    else signal?.addEventListener("abort", onAbort, { once: true });
    return { woken, cancel: () => done(false) };
  }

  /** Waiters currently held (tests, metrics). */
  get waiting(): number {
    let n = 0;
    for (const s of this.waiters.values()) n += s.size;
    return n;
  }

  private dispatch(payload: string | undefined): void {
    let ids: unknown;
    try {
      ids = JSON.parse(payload ?? "");
    } catch {
      return;
    }
    if (!Array.isArray(ids)) return;
    for (const id of ids) for (const wake of [...(this.waiters.get(String(id)) ?? [])]) wake();
  }

  private releaseAll(): void {
    for (const set of [...this.waiters.values()]) for (const wake of [...set]) wake();
  }

  async close(): Promise<void> {
    this.releaseAll();
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => undefined);
  }
}
