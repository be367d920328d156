// A planned drain (R8: an operator drains a node at a time) through REST and tRPC against a real
// Postgres: operators and admins only, each role of the others refused before the body is read; a time
// that is unreadable, zoneless or past refused; each plan and cancel one node event and one audit row;
// a refusal writes nothing.
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@tranche/domain";
import { callRest, makeWorld, type World } from "./fixtures";

let w: World;
const tokens = { ada: "", maya: "", victor: "", omar: "", admin: "", other: "" };
const later = (hours: number) => new Date(Date.now() + hours * 3600_000).toISOString();

beforeAll(async () => {
  w = await makeWorld("api_planned_drain");
  for (const who of Object.keys(tokens) as (keyof typeof tokens)[])
    tokens[who] = (await createApiToken(w.db.prisma, w.users[who], { name: "test" })).token;
});
afterAll(async () => {
  await w?.db.drop();
});

const call = (method: string, path: string, opts?: Parameters<typeof callRest>[3]) => callRest(w, method, path, opts);

/** What a plan may write: the nodes' plans and states, node events, audit rows. */
async function written() {
  const nodes = await w.db.prisma.node.findMany({
    select: { name: true, state: true, drainAt: true, drainReason: true, drainPlannedById: true },
    orderBy: { name: "asc" },
  });
  return { nodes, events: await w.db.prisma.nodeEvent.count(), audits: await w.db.prisma.auditLog.count() };
}

async function refused(status: number, method: string, path: string, opts: Parameters<typeof callRest>[3], says: string) {
  const before = await written();
  const r = await call(method, path, opts);
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.error.message).toContain(says);
  expect(await written()).toEqual(before);
}

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "OK";
  } catch (e) {
    if (e instanceof TRPCError) return e.code;
    throw e;
  }
}

describe("POST /api/v1/nodes/{name}/drain with a time", () => {
  it("refuses every role but operators and admins, before reading the body, writing nothing", async () => {
    await refused(401, "POST", "/nodes/h100-3/drain", { body: { at: later(2) } }, "Authentication required");
    // A researcher, a manager of Ada's budgets, a manager of another subtree, another researcher.
    for (const who of ["ada", "maya", "victor", "other"] as const) {
      await refused(403, "POST", "/nodes/h100-3/drain", { token: tokens[who], body: { at: later(2) } }, "drain nodes");
      await refused(403, "POST", "/nodes/h100-3/drain", { token: tokens[who], body: { at: "soon" } }, "drain nodes");
      await refused(403, "DELETE", "/nodes/h100-3/drain", { token: tokens[who] }, "drain nodes");
    }
  });

  it("refuses a time it cannot read, one without its zone, and one past, writing nothing", async () => {
    const t = { token: tokens.omar };
    await refused(
      400,
      "POST",
      "/nodes/h100-3/drain",
      { ...t, body: { at: "Saturday 02:00" } },
      "at must be a date and time with its time zone",
    );
    await refused(400, "POST", "/nodes/h100-3/drain", { ...t, body: { at: "2030-12-12T02:00:00" } }, "with its time zone");
    await refused(400, "POST", "/nodes/h100-3/drain", { ...t, body: { at: "2030-02-31T02:00:00Z" } }, "with its time zone");
    await refused(400, "POST", "/nodes/h100-3/drain", { ...t, body: { at: later(-1) } }, "at has passed");
    await refused(400, "POST", "/nodes/h100-3/drain", { ...t, body: { at: later(2), when: 1 } }, "unknown field 'when'");
    await refused(404, "POST", "/nodes/h100-99/drain", { ...t, body: { at: later(2) } }, "There is no node 'h100-99'");
    await refused(409, "DELETE", "/nodes/h100-3/drain", t, "h100-3 has no planned drain to cancel");
    await w.db.prisma.node.update({ where: { name: "h100-4" }, data: { state: "REPAIR" } });
    await refused(409, "POST", "/nodes/h100-4/drain", { ...t, body: { at: later(2) } }, "only ready or cordoned nodes");
    await w.db.prisma.node.update({ where: { name: "h100-4" }, data: { state: "READY" } });
  });

  it("plans (operators, admins), shows the plan and its history line, and cancels it, each with one audit row", async () => {
    const at = later(30);
    const before = await written();
    const planned = await call("POST", "/nodes/h100-3/drain", { token: tokens.omar, body: { at, reason: "driver 560" } });
    expect(planned.status, JSON.stringify(planned.body)).toBe(200);
    expect(planned.body.node).toMatchObject({
      name: "h100-3",
      state: "READY",
      drainAt: at,
      drainReason: "driver 560",
      drainPlannedBy: w.users.omar.name,
    });
    const shown = await call("GET", "/nodes/h100-3", { token: tokens.ada });
    expect(shown.body.node.drainAt).toBe(at);
    expect(shown.body.events[0]).toMatchObject({ from: "READY", to: "READY", by: w.users.omar.name });
    expect(shown.body.events[0].reason).toMatch(/^Maintenance planned for \w{3} \d+ \w{3}( \d{4})? \d{2}:\d{2} UTC: driver 560$/);
    const audits = await w.db.prisma.auditLog.findMany({ where: { action: "node.planDrain" } });
    expect(audits).toHaveLength(1);
    expect(audits[0]!.details).toMatchObject({ node: "h100-3", at, reason: "driver 560" });
    expect(await written()).toMatchObject({ events: before.events + 1, audits: before.audits + 1 });

    // An admin replaces it; DELETE cancels it, and the node stays as it was.
    const again = await call("POST", "/nodes/h100-3/drain", { token: tokens.admin, body: { at: later(40) } });
    expect(again.body.node).toMatchObject({ drainReason: null, drainPlannedBy: w.users.admin.name });
    const cancelled = await call("DELETE", "/nodes/h100-3/drain", { token: tokens.omar });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.node).toMatchObject({ state: "READY", drainAt: null, drainReason: null, drainPlannedBy: null });
    expect(await w.db.prisma.auditLog.count({ where: { action: "node.cancelDrain" } })).toBe(1);
    const history = await call("GET", "/nodes/h100-3", { token: tokens.omar });
    expect(history.body.events[0].reason).toBe("Planned maintenance cancelled");
  });

  it("a drain now, an uncordon or a repair clears the plan", async () => {
    for (const [state, action] of [
      ["READY", "drain"],
      ["CORDONED", "uncordon"],
      ["DOWN", "repaired"],
    ] as const) {
      await w.db.prisma.node.update({ where: { name: "h100-5" }, data: { state, lastHeartbeatAt: new Date() } });
      if (state !== "DOWN")
        expect((await call("POST", "/nodes/h100-5/drain", { token: tokens.omar, body: { at: later(5) } })).status).toBe(200);
      else await w.db.prisma.node.update({ where: { name: "h100-5" }, data: { drainAt: new Date(later(5)) } });
      const r = await call("POST", `/nodes/h100-5/${action}`, { token: tokens.omar });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.node.drainAt).toBeNull();
    }
  });
});

describe("tRPC node.planDrain / node.cancelDrain (the Nodes page)", () => {
  it("is refused to nobody, researchers and managers in and out of their subtree; operators and admins plan and cancel", async () => {
    const node = await w.db.prisma.node.findUniqueOrThrow({ where: { name: "h100-6" } });
    const input = { nodeId: node.id, at: later(3), reason: "fan" };
    expect(await code(w.caller(null).node.planDrain(input))).toBe("UNAUTHORIZED");
    for (const who of ["ada", "maya", "victor", "other"] as const) {
      expect(await code(w.caller(who).node.planDrain(input))).toBe("FORBIDDEN");
      expect(await code(w.caller(who).node.cancelDrain({ nodeId: node.id }))).toBe("FORBIDDEN");
    }
    expect(await code(w.caller("omar").node.planDrain({ ...input, at: "tomorrow" }))).toBe("BAD_REQUEST");
    for (const who of ["omar", "admin"] as const) {
      expect((await w.caller(who).node.planDrain(input)).drainReason).toBe("fan");
      expect((await w.caller(who).node.cancelDrain({ nodeId: node.id })).drainAt).toBeNull();
    }
  });
});
