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
    expect(on.body.cluster).toEqual({ name: "h100", squattingUnprotectAfter: 14_400 });
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
