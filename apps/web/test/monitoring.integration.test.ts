import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import { seedDemoWorld } from "@tranche/db/setup";
import { PEER_HEADER } from "../server/client-address";
import { healthResponse } from "../server/health";
import { metricsRefusal, monitoringAccessFromEnv } from "../server/monitoring-access";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase("web_monitoring");
  await seedDemoWorld(db.prisma);
  await db.prisma.workerLease.create({
    data: { name: "scheduler", holderId: "worker-host-4711", expiresAt: new Date(Date.now() + 60_000) },
  });
});
afterAll(async () => {
  await db?.drop();
});

const scrape = (headers: Record<string, string> = {}) =>
  new Request("http://127.0.0.1:3000/metrics", { headers: { [PEER_HEADER]: "203.0.113.7", ...headers } });

describe("/api/health", () => {
  it("says only ok to someone not signed in, and the details to those who run the platform", async () => {
    const minimal = await healthResponse(db.prisma, false);
    expect(minimal.status).toBe(200);
    expect(await minimal.json()).toEqual({ status: "ok" });
    const detailed = (await (await healthResponse(db.prisma, true)).json()) as Record<string, unknown>;
    expect(detailed).toMatchObject({ status: "ok", db: "ok", worker: { leader: "worker-host-4711" }, scheduler: "ok" });
  });

  it("says degraded, still with 200, when the leader has committed no cycle for over two minutes", async () => {
    const lastCycleAt = new Date(Date.now() - 11 * 60_000);
    await db.prisma.workerLease.update({ where: { name: "scheduler" }, data: { lastCycleAt } });
    try {
      const minimal = await healthResponse(db.prisma, false);
      expect(minimal.status).toBe(200);
      expect(await minimal.json()).toEqual({ status: "degraded" });
      const detailed = (await (await healthResponse(db.prisma, true)).json()) as Record<string, unknown>;
      expect(detailed).toMatchObject({ status: "degraded", scheduler: `stalled: no cycle since ${lastCycleAt.toISOString()}` });
      // A cycle a minute ago is a scheduler at work.
      await db.prisma.workerLease.update({ where: { name: "scheduler" }, data: { lastCycleAt: new Date(Date.now() - 60_000) } });
      expect(await (await healthResponse(db.prisma, false)).json()).toEqual({ status: "ok" });
    } finally {
      await db.prisma.workerLease.update({ where: { name: "scheduler" }, data: { lastCycleAt: null } });
    }
  });
});

describe("/metrics", () => {
  it("is open in the demo when neither a token nor an allow-list is configured, and closed outside it", async () => {
    expect(metricsRefusal(scrape(), monitoringAccessFromEnv({}))).toBeNull();
    // Outside the demo, with nothing configured, nobody may scrape.
    const closed = metricsRefusal(scrape(), monitoringAccessFromEnv({ TRANCHE_DEMO: "0" }));
    expect(closed!.status).toBe(401);
    expect(await closed!.text()).toContain("/metrics is closed: set TRANCHE_METRICS_TOKEN");
  });

  it("takes the bearer token when TRANCHE_METRICS_TOKEN is set", () => {
    const access = monitoringAccessFromEnv({ TRANCHE_METRICS_TOKEN: "scrape-me-please" });
    expect(metricsRefusal(scrape(), access)!.status).toBe(401);
    expect(metricsRefusal(scrape({ authorization: "Bearer wrong-token-xx" }), access)!.status).toBe(401);
    expect(metricsRefusal(scrape({ authorization: "Bearer scrape-me-please" }), access)).toBeNull();
  });

  it("lets an allowed scraper address in without the token, and no forged X-Forwarded-For", () => {
    const access = monitoringAccessFromEnv({ TRANCHE_METRICS_TOKEN: "t0ken-t0ken", TRANCHE_METRICS_ALLOW: "10.1.0.0/16" });
    expect(metricsRefusal(scrape({ [PEER_HEADER]: "10.1.2.3" }), access)).toBeNull();
    expect(metricsRefusal(scrape({ "x-forwarded-for": "10.1.2.3" }), access)!.status).toBe(401);
  });
});
