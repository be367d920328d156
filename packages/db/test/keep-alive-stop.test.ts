// npm start's watch over its embedded PostgreSQL, when a stop (Ctrl-C) lands while a restart after a
// crash is failing: the stop's own signal reaches the starting server too. The watch must not try
// again, nor tell the person it will. A fake server stands in for PostgreSQL (the watch's rounds run
// on fake timers), so the restart's failure comes exactly when the test says.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

const starts = vi.hoisted(() => ({ calls: 0, next: [] as Array<{ resolve: (s: unknown) => void; reject: (e: Error) => void }> }));

vi.mock("../src/embedded-postgres", () => ({
  embeddedDatabaseUrl: () => "postgresql://x",
  startEmbeddedPostgres: () => {
    starts.calls++;
    if (starts.calls === 1) return Promise.resolve(fakeServer());
    return new Promise((resolve, reject) => starts.next.push({ resolve, reject }));
  },
}));

let alive = true;
const fakeServer = () => ({ url: "postgresql://x", port: 1, dataDir: "/none", stop: async () => {}, alive: () => alive });

const { openDatabase } = await import("../src/database");

describe("the embedded PostgreSQL's keep-alive during a stop", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.stubEnv("DATABASE_URL", "");
    vi.stubEnv("TRANCHE_PG_PORT", "54872");
    starts.calls = 0;
    starts.next = [];
    alive = true;
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllEnvs();
  });

  it("a restart that fails once the stop began is neither retried nor announced as retried", async () => {
    const db = await openDatabase({ migrate: false });
    const lines: string[] = [];
    const endWatch = db.keepAlive!((l) => lines.push(l));
    alive = false; // the crash
    await vi.advanceTimersByTimeAsync(2_000);
    expect(lines).toEqual(["• PostgreSQL stopped unexpectedly; starting it again (the services wait and reconnect)"]);
    expect(starts.calls).toBe(2);

    endWatch(); // what shutdown does first
    const stopped = db.stop();
    starts.next.shift()!.reject(new Error("postgres exited early"));
    await stopped;
    await vi.advanceTimersByTimeAsync(10_000);

    expect(starts.calls).toBe(2);
    expect(lines.join("\n")).not.toContain("retrying");
    expect(lines).toHaveLength(1);
  });

  it("a watch begun after the stop (Ctrl-C while migrations ran) starts nothing", async () => {
    const db = await openDatabase({ migrate: false });
    await db.stop();
    alive = false;
    const lines: string[] = [];
    db.keepAlive!((l) => lines.push(l));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(starts.calls).toBe(1);
    expect(lines).toEqual([]);
  });

  it("without a stop, a failed restart is tried again 2 s later and says so", async () => {
    const db = await openDatabase({ migrate: false });
    const lines: string[] = [];
    db.keepAlive!((l) => lines.push(l));
    alive = false;
    await vi.advanceTimersByTimeAsync(2_000);
    starts.next.shift()!.reject(new Error("postgres exited early"));
    await vi.advanceTimersByTimeAsync(2_000);
    expect(lines[1]).toBe("• PostgreSQL did not start again (postgres exited early); retrying in 2 s");
    expect(starts.calls).toBe(3);
    starts.next.shift()!.resolve(fakeServer());
    await db.stop();
  });
});
