// A worker told to stop exits within seconds whatever became of its database. With a server gone
// silent (a frozen host, one dropped from the network) its goodbye to the lease waited on a query no
// one would answer, and the worker was still running minutes after SIGTERM; npm start, compose or
// systemd then waited for it, or killed it.
import { afterAll, describe, expect, it } from "vitest";
import { startOwnPostgres, type OwnPostgres } from "@tranche/db/testing";
import { spawnWorker, type Proc } from "./harness";

/** Generous: a correctness bound (the worker exits at all), not a speed measure; it exits in about 2 s. */
const EXIT_BOUND_MS = 10_000;

describe("a worker told to stop with its database gone", () => {
  let pg: OwnPostgres | null = null;
  const workers: Proc[] = [];

  afterAll(async () => {
    pg?.signal("SIGCONT");
    for (const w of workers) await w.stop("SIGKILL");
    await pg?.dispose();
  });

  /**
   * A leading worker, `what` done to its database, then SIGTERM: the seconds until it exited, or null.
   * A frozen server is thawed after, for the next test.
   */
  async function stopWith(what: (pg: OwnPostgres) => void): Promise<number | null> {
    pg ??= await startOwnPostgres("stop-no-db");
    // A short lease: the next test's worker takes over from one that could not release it.
    const worker = spawnWorker(pg.url, { TRANCHE_LEASE_TTL_SEC: "2" });
    workers.push(worker);
    await worker.waitForOutput("is now the leader");
    await new Promise((r) => setTimeout(r, 1000)); // cycles, lease renewals and the listener all in flight
    what(pg);
    await new Promise((r) => setTimeout(r, 500));
    const sent = Date.now();
    worker.child.kill("SIGTERM");
    await Promise.race([worker.wait(), new Promise((r) => setTimeout(r, EXIT_BOUND_MS))]);
    const seconds = worker.exit ? (Date.now() - sent) / 1000 : null;
    await worker.stop("SIGKILL"); // one still running would hold the lease from the next test's worker
    pg.signal("SIGCONT");
    return seconds;
  }

  it("exits when the server went silent: a frozen server answers nothing and closes nothing", async () => {
    const seconds = await stopWith((pg) => pg.signal("SIGSTOP"));
    console.log(`worker exit after SIGTERM, database frozen: ${seconds === null ? "still running" : `${seconds} s`}`);
    expect(seconds, "the worker was still running 10 s after SIGTERM").not.toBeNull();
  }, 60_000);

  it("exits when the server was killed", async () => {
    const seconds = await stopWith((pg) => pg.signal("SIGKILL"));
    console.log(`worker exit after SIGTERM, database killed: ${seconds === null ? "still running" : `${seconds} s`}`);
    expect(seconds, "the worker was still running 10 s after SIGTERM").not.toBeNull();
  }, 60_000);
});
