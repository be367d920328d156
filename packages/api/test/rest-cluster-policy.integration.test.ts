import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@tranche/domain";
import { loadCycleInput } from "@tranche/domain/runtime";
import { callRest, makeWorld, type World } from "./fixtures";

let w: World;
let admin: string;
let ada: string;

beforeAll(async () => {
  w = await makeWorld("api_cluster_policy");
  admin = (await createApiToken(w.db.prisma, w.users.admin, { name: "test" })).token;
  ada = (await createApiToken(w.db.prisma, w.users.ada, { name: "test" })).token;
});
afterAll(async () => {
  await w?.db.drop();
});

const patch = (body: unknown, token = admin, name = "h100") => callRest(w, "PATCH", `/clusters/${name}`, { token, body });
const stored = async () => (await w.db.prisma.cluster.findUniqueOrThrow({ where: { name: "h100" } })).squattingUnprotectAfterSec;

describe("PATCH /api/v1/clusters/{name}: the squatting policy", () => {
  it("is off by default; an admin sets it, the scheduler's policy for the cluster carries it, and null turns it off again", async () => {
    expect(await stored()).toBeNull();
    const on = await patch({ squattingUnprotectAfter: "4h" });
    expect(on.status).toBe(200);
    expect(on.body.cluster).toMatchObject({ name: "h100", squattingUnprotectAfter: 14_400 });
    const c = await w.db.prisma.cluster.findUniqueOrThrow({ where: { name: "h100" } });
    expect((await loadCycleInput(w.db.prisma, c.id, Math.floor(Date.now() / 1000))).policy.squattingUnprotectAfter).toBe(14_400);
    expect(await w.db.prisma.auditLog.count({ where: { action: "cluster.policy" } })).toBe(1);
    const off = await patch({ squattingUnprotectAfter: null });
    expect(off.body.cluster.squattingUnprotectAfter).toBeNull();
    expect((await loadCycleInput(w.db.prisma, c.id, Math.floor(Date.now() / 1000))).policy.squattingUnprotectAfter).toBe(0);
  });

  it("bad input answers 400 naming the field, a researcher 403 and an unknown cluster 404; nothing changes", async () => {
    await patch({ squattingUnprotectAfter: "6h" });
    const cases: [unknown, string, RegExp][] = [
      [{ squattingUnprotectAfter: "10m" }, "squattingUnprotectAfter", /at least 1 hour/],
      [{ squattingUnprotectAfter: "30d" }, "squattingUnprotectAfter", /cannot exceed 7 days/],
      [{ squattingUnprotectAfter: "soon" }, "squattingUnprotectAfter", /squattingUnprotectAfter/],
      [{ squattingUnprotectAfter: "4h", colour: "red" }, "colour", /unknown field 'colour'/],
      [{ squattingUnprotectAfter: "4h", debugReservePercent: 12 }, "debugReservePercent", /cannot exceed 10/],
      [{ squattingUnprotectAfter: "4h", debugMaxGpusPerUser: 2.5 }, "debugMaxGpusPerUser", /whole number of GPUs/],
    ];
    for (const [body, field, message] of cases) {
      const r = await patch(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.message).toMatch(message);
      expect(r.body.error.issues.map((i: { path: string }) => i.path)).toContain(field);
    }
    expect((await patch({ squattingUnprotectAfter: "2h" }, ada)).status).toBe(403);
    expect((await patch({ squattingUnprotectAfter: "2h" }, admin, "nope")).status).toBe(404);
    expect(await stored()).toBe(6 * 3600);
  });
});

describe("PATCH /api/v1/clusters/{name}: the debug lane", () => {
  const policyOf = async () => {
    const c = await w.db.prisma.cluster.findUniqueOrThrow({ where: { name: "h100" } });
    return (await loadCycleInput(w.db.prisma, c.id, Math.floor(Date.now() / 1000))).policy;
  };
  const listed = async () =>
    ((await callRest(w, "GET", "/clusters", { token: ada })).body.clusters as { name: string; policy: unknown }[]).find(
      (c) => c.name === "h100",
    )!.policy;

  it("starts at the scheduler's defaults; an admin changes only the fields sent, the cycle's policy carries them, null restores a default", async () => {
    const before = await policyOf();
    expect(before).toMatchObject({ debugReserve: 0.02, debugMaxGpusPerUser: 8, debugVictimMaxCost: 4 * 3600 });
    expect(await listed()).toMatchObject({ debugReservePercent: 2, debugMaxGpusPerUser: 8, debugVictimMaxGpuHours: 4 });
    const squatting = before.squattingUnprotectAfter;

    const r = await patch({ debugReservePercent: 5, debugVictimMaxGpuHours: 0.5 });
    expect(r.status).toBe(200);
    expect(r.body.cluster).toMatchObject({ debugReservePercent: 5, debugMaxGpusPerUser: 8, debugVictimMaxGpuHours: 0.5 });
    let p = await policyOf();
    expect(p).toMatchObject({
      debugReserve: 0.05,
      debugMaxGpusPerUser: 8,
      debugVictimMaxCost: 1800,
      squattingUnprotectAfter: squatting,
    });

    expect((await patch({ debugMaxGpusPerUser: 16 })).status).toBe(200);
    p = await policyOf();
    expect(p).toMatchObject({ debugReserve: 0.05, debugMaxGpusPerUser: 16, debugVictimMaxCost: 1800 });
    expect(await listed()).toMatchObject({ debugReservePercent: 5, debugMaxGpusPerUser: 16, debugVictimMaxGpuHours: 0.5 });
    const audit = await w.db.prisma.auditLog.findFirstOrThrow({ where: { action: "cluster.policy" }, orderBy: { id: "desc" } });
    expect(audit.details).toMatchObject({ debugMaxGpusPerUser: { from: 8, to: 16 } });
    expect(Object.keys(audit.details as object)).not.toContain("debugReservePercent");

    expect((await patch({ debugReservePercent: null, debugVictimMaxGpuHours: null })).status).toBe(200);
    expect(await policyOf()).toMatchObject({ debugReserve: 0.02, debugMaxGpusPerUser: 16, debugVictimMaxCost: 4 * 3600 });
    expect((await patch({ debugMaxGpusPerUser: null })).status).toBe(200);
    expect(await policyOf()).toMatchObject({ debugMaxGpusPerUser: 8 });
  });

  it("refuses an empty change, values out of range and a researcher; nothing changes", async () => {
    await patch({ debugMaxGpusPerUser: 4 });
    const cases: [unknown, string | null, RegExp][] = [
      [{}, null, /needs at least one of squattingUnprotectAfter, debugReservePercent/],
      [{ debugReservePercent: -1 }, "debugReservePercent", /at least 0/],
      [{ debugReservePercent: "2%" }, "debugReservePercent", /must be a number \(percent/],
      [{ debugMaxGpusPerUser: 0 }, "debugMaxGpusPerUser", /at least 1 \(GPUs\)/],
      [{ debugVictimMaxGpuHours: 20_000 }, "debugVictimMaxGpuHours", /cannot exceed 10,000 \(GPU-hours\)/],
    ];
    for (const [body, field, message] of cases) {
      const r = await patch(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.message).toMatch(message);
      if (field) expect(r.body.error.issues.map((i: { path: string }) => i.path)).toContain(field);
    }
    expect((await patch({ debugMaxGpusPerUser: 2 }, ada)).status).toBe(403);
    expect(await policyOf()).toMatchObject({ debugMaxGpusPerUser: 4, debugReserve: 0.02 });
  });
});
