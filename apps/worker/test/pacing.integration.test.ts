import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import { Worker } from "../src/worker";
import { makeWorld, waitFor } from "./harness";

// A woken worker rests after its cycle so that bursts of NOTIFYs coalesce. It rested as long as the
// cycle had taken, and could not be woken meanwhile: after a cycle held for minutes by a slow query
// (1,000 jobs of 100 dependencies each), the leader kept renewing its lease and ran no cycle for as
// many minutes more, with nothing running in the database to say why.
describe("worker pacing", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("pacing");
    await makeWorld(db.prisma, { nodes: 1 });
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("after a long cycle during which it was woken, the next cycle starts within the cycle interval", async () => {
    let slow = true;
    const worker: Worker = new Worker(db.prisma, {
      databaseUrl: db.url,
      workerId: "pacing",
      intervalMs: 500,
      leaseTtlSec: 30,
      policy: {},
      log: () => {},
      forecast: { everyMs: -1, maxJobs: 1, maxSteps: 1 },
      // The first cycle takes 8 s, and a submission's NOTIFY arrives while it runs.
      beforeApply: async () => {
        if (!slow) return;
        slow = false;
        worker.wake();
        await new Promise((r) => setTimeout(r, 8000));
      },
    });
    await worker.start();
    const running = worker.run();
    try {
      await waitFor("the long cycle", async () => worker.cycles >= 1, 30_000, 20);
      const ended = Date.now();
      await waitFor("the next cycle", async () => worker.cycles >= 2, 30_000, 20);
      expect(Date.now() - ended).toBeLessThan(4000);
    } finally {
      await worker.stop();
      await running;
    }
  }, 60_000);
});
