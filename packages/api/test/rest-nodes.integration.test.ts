// REST /api/v1/nodes against a real Postgres: the nodes page's view for any signed-in user, and its
// operators' actions by node name. Refusals (wrong role, bad input, unknown node, a transition the
// state does not allow) change no node, event or audit row; each action writes one of each.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@tranche/domain";
import { callRest, makeWorld, type World } from "./fixtures";

let w: World;
const tokens = { ada: "", omar: "", admin: "" };

beforeAll(async () => {
  w = await makeWorld("api_rest_nodes");
  for (const who of Object.keys(tokens) as (keyof typeof tokens)[])
    tokens[who] = (await createApiToken(w.db.prisma, w.users[who], { name: "test" })).token;
});
afterAll(async () => {
  await w?.db.drop();
});

const call = (method: string, path: string, opts?: Parameters<typeof callRest>[3]) => callRest(w, method, path, opts);

/** Every node's state, reason and manual flag, the node events and the audit rows: what an action may write. */
async function written() {
  const nodes = await w.db.prisma.node.findMany({
    select: { name: true, state: true, stateReason: true, drainIsManual: true, health: true },
    orderBy: { name: "asc" },
  });
  return { nodes, events: await w.db.prisma.nodeEvent.count(), audits: await w.db.prisma.auditLog.count() };
}

/** The request answers `status` with a JSON error whose message contains `says`, and writes nothing. */
async function refused(status: number, method: string, path: string, opts: Parameters<typeof callRest>[3], says: string) {
  const before = await written();
  const r = await call(method, path, opts);
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.error.message).toContain(says);
  expect(await written()).toEqual(before);
}

describe("GET /api/v1/nodes", () => {
  it("lists every cluster's nodes, or one cluster's, for any signed-in user", async () => {
    const all = await call("GET", "/nodes", { token: tokens.ada });
    expect(all.status).toBe(200);
    expect(all.body.nodes).toHaveLength(11 + 32);
    // By cluster, then by name in number order (h100-2 before h100-10).
    expect(all.body.nodes.slice(0, 2).map((n: { name: string }) => n.name)).toEqual(["b200-0", "b200-1"]);
    const h100 = await call("GET", "/nodes?cluster=h100", { token: tokens.ada });
    expect(h100.body.nodes.map((n: { name: string }) => n.name).slice(0, 3)).toEqual(["h100-0", "h100-1", "h100-2"]);
    expect(h100.body.nodes[0]).toMatchObject({ cluster: "h100", state: "READY", gpuCount: 8, usedGpus: 0 });
    expect(h100.body.nodes[0].gpus).toHaveLength(8);
  });
  it("refuses no token, an unknown cluster and a bad query", async () => {
    await refused(401, "GET", "/nodes", {}, "Authentication required");
    await refused(404, "GET", "/nodes?cluster=a100", { token: tokens.ada }, "There is no cluster 'a100'");
    await refused(400, "GET", "/nodes?cluster=", { token: tokens.ada }, "cluster");
    await refused(
      400,
      "GET",
      "/nodes?state=ready,drainin",
      { token: tokens.ada },
      "state takes ready, cordoned, draining, repair, down, retired (comma-separated), got 'drainin'",
    );
    await refused(400, "GET", "/nodes?retired=yes", { token: tokens.ada }, "retired takes 1");
    await refused(400, "GET", "/nodes?status=down", { token: tokens.ada }, "unknown field 'status'");
  });
  it("lists only the nodes in the states asked for (?state=down,repair), as tranche nodes --state", async () => {
    // The CLI filtered locally; scripts had to fetch every node of every cluster to find the few out.
    const { prisma } = w.db;
    await prisma.node.update({ where: { name: "h100-20" }, data: { state: "DOWN", stateReason: "no heartbeat" } });
    await prisma.node.update({ where: { name: "h100-21" }, data: { state: "REPAIR", stateReason: "fan" } });
    await prisma.node.update({ where: { name: "h100-22" }, data: { state: "RETIRED" } });
    const out = await call("GET", "/nodes?cluster=h100&state=Down,repair", { token: tokens.ada });
    expect(out.status).toBe(200);
    const expected = await prisma.node.findMany({ where: { cluster: { name: "h100" }, state: { in: ["DOWN", "REPAIR"] } } });
    const names = out.body.nodes.map((n: { name: string }) => n.name);
    expect(names).toEqual(expect.arrayContaining(["h100-20", "h100-21"]));
    expect([...names].sort()).toEqual(expected.map((n) => n.name).sort());
    const retired = await call("GET", "/nodes?state=retired", { token: tokens.ada });
    expect(retired.body.nodes.map((n: { name: string }) => n.name)).toEqual(["h100-22"]);
    await prisma.node.updateMany({
      where: { name: { in: ["h100-20", "h100-21", "h100-22"] } },
      data: { state: "READY", stateReason: null },
    });
  });
  it("shows one node with its latest changes; an unknown one is 404", async () => {
    const r = await call("GET", "/nodes/b200-3", { token: tokens.ada });
    expect(r.status).toBe(200);
    expect(r.body.node).toMatchObject({ name: "b200-3", cluster: "b200", state: "READY" });
    expect(r.body.events).toEqual([]);
    await refused(404, "GET", "/nodes/b200-99", { token: tokens.ada }, "There is no node 'b200-99'");
  });
});

describe("POST /api/v1/nodes/{name}/{action}", () => {
  it("refuses a researcher before reading the body, and bad input, writing nothing", async () => {
    await refused(403, "POST", "/nodes/h100-4/drain", { token: tokens.ada, body: { reason: "x" } }, "drain nodes");
    await refused(403, "POST", "/nodes/h100-4/drain", { token: tokens.ada, raw: "{not json" }, "Only operators may drain nodes");
    await refused(401, "POST", "/nodes/h100-4/drain", {}, "Authentication required");
    await refused(400, "POST", "/nodes/h100-4/drain", { token: tokens.omar, body: { reason: 7 } }, "reason");
    await refused(
      400,
      "POST",
      "/nodes/h100-4/drain",
      { token: tokens.omar, body: { reason: "r".repeat(501) } },
      "500 characters",
    );
    await refused(400, "POST", "/nodes/h100-4/drain", { token: tokens.omar, body: { why: "fan" } }, "unknown field 'why'");
    await refused(404, "POST", "/nodes/h100-99/drain", { token: tokens.omar, body: {} }, "There is no node 'h100-99'");
    await refused(404, "POST", "/nodes/h100-4/explode", { token: tokens.omar, body: {} }, "No such endpoint");
    // Not a prototype key either.
    await refused(404, "POST", "/nodes/h100-4/constructor", { token: tokens.omar, body: {} }, "No such endpoint");
  });

  it("drains, cordons, uncordons and marks repaired, each with one node event and one audit row", async () => {
    const step = async (action: string, body: unknown, state: string) => {
      const before = await written();
      const r = await call("POST", `/nodes/h100-5/${action}`, { token: tokens.omar, ...(body === undefined ? {} : { body }) });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.node).toMatchObject({ name: "h100-5", state });
      const after = await written();
      expect(after.events).toBe(before.events + 1);
      expect(after.audits).toBe(before.audits + 1);
      return r.body.node as { stateReason: string; drainIsManual: boolean };
    };
    const drained = await step("drain", { reason: "  fan failure " }, "DRAINING");
    expect(drained).toMatchObject({ stateReason: "fan failure", drainIsManual: true });
    const audit = await w.db.prisma.auditLog.findFirstOrThrow({ orderBy: { id: "desc" } });
    expect(audit.action).toBe("node.drain");
    expect(audit.details).toMatchObject({ node: "h100-5", from: "READY", to: "DRAINING", reason: "fan failure" });
    // A transition the state does not allow is a conflict that names the state, and writes nothing.
    await refused(
      409,
      "POST",
      "/nodes/h100-5/cordon",
      { token: tokens.omar },
      "Cannot cordon h100-5: it is draining, and only ready nodes can be cordoned",
    );
    await step("uncordon", undefined, "READY");
    const cordoned = await step("cordon", {}, "CORDONED");
    // No reason given is none: the actor is not written into it (the history shows who, beside it).
    expect(cordoned.stateReason).toBeNull();
    await step("repaired", { reason: "fan replaced" }, "READY");
    const shown = await call("GET", "/nodes/h100-5", { token: tokens.ada });
    expect(shown.body.events.map((e: { to: string; automatic: boolean }) => [e.to, e.automatic])).toEqual([
      ["READY", false],
      ["CORDONED", false],
      ["READY", false],
      ["DRAINING", false],
    ]);
    expect(shown.body.events[0].reason).toBe("fan replaced");
    expect(shown.body.events[1].reason).toBeNull();
    const audit2 = await w.db.prisma.auditLog.findFirstOrThrow({ where: { action: "node.cordon" }, orderBy: { id: "desc" } });
    expect(audit2.details).toMatchObject({ node: "h100-5", reason: null });
    expect(shown.body.events.map((e: { by: string | null }) => e.by)).toEqual(Array(4).fill("Omar Operator"));
    // The agent's and the scheduler's own changes name nobody.
    const node = await w.db.prisma.node.findUniqueOrThrow({ where: { name: "h100-5" } });
    await w.db.prisma.nodeEvent.create({
      data: { nodeId: node.id, fromState: "READY", toState: "DRAINING", reason: "GPU 2: XID 79", automatic: true },
    });
    const latest = (await call("GET", "/nodes/h100-5", { token: tokens.ada })).body.events[0];
    expect(latest).toMatchObject({ to: "DRAINING", automatic: true, by: null, reason: "GPU 2: XID 79" });
    // A change stored before, when no reason given was written as one naming the operator, reads as none.
    const omar = await w.db.prisma.user.findFirstOrThrow({ where: { name: "Omar Operator" } });
    await w.db.prisma.nodeEvent.create({
      data: {
        nodeId: node.id,
        fromState: "DRAINING",
        toState: "CORDONED",
        reason: "cordon by Omar Operator",
        automatic: false,
        actorId: omar.id,
      },
    });
    const older = (await call("GET", "/nodes/h100-5", { token: tokens.ada })).body.events[0];
    expect(older).toMatchObject({ to: "CORDONED", by: "Omar Operator", reason: null });
  });

  it("refuses to mark repaired a node whose agent is silent, which would go down again at once", async () => {
    // It answered "ready: new work may start there", and the next cycle took it DOWN again.
    const fiveMinutesAgo = new Date(Date.now() - 300_000);
    await w.db.prisma.node.update({
      where: { name: "h100-7" },
      data: { state: "DOWN", stateReason: "missed heartbeats", lastHeartbeatAt: fiveMinutesAgo },
    });
    await refused(
      409,
      "POST",
      "/nodes/h100-7/repaired",
      { token: tokens.omar, body: { reason: "fan replaced" } },
      "Cannot mark h100-7 repaired: its agent has not been heard from for 5 min, so it would go down again at once. Start its agent first (a down node turns ready by itself at its agent's first healthy report).",
    );
    // Heard from a moment ago (its agent is back, the node still in repair by hand): it may.
    await w.db.prisma.node.update({ where: { name: "h100-7" }, data: { state: "REPAIR", lastHeartbeatAt: new Date() } });
    const r = await call("POST", "/nodes/h100-7/repaired", { token: tokens.omar, body: { reason: "fan replaced" } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.node.state).toBe("READY");
  });

  it("revokes a node's credential by name (operators), as before", async () => {
    await w.db.prisma.node.update({ where: { name: "h100-6" }, data: { agentCredentialHash: "x".repeat(64) } });
    expect((await call("GET", "/nodes/h100-6", { token: tokens.omar })).body.node.hasCredential).toBe(true);
    await refused(403, "POST", "/nodes/h100-6/revoke-credential", { token: tokens.ada }, "revoke node credentials");
    const r = await call("POST", "/nodes/h100-6/revoke-credential", { token: tokens.omar });
    expect(r.status).toBe(200);
    expect(r.body.node).toMatchObject({ node: "h100-6", revoked: true });
    // The lists say so, so the Hosts page offers no second revoke that could only fail.
    const shown = await call("GET", "/nodes/h100-6", { token: tokens.omar });
    expect(shown.body.node.hasCredential).toBe(false);
  });

  it("is in the OpenAPI document", async () => {
    const r = await call("GET", "/openapi.json");
    for (const p of [
      "/nodes",
      "/nodes/{name}",
      "/nodes/{name}/drain",
      "/nodes/{name}/repaired",
      "/nodes/{name}/revoke-credential",
    ])
      expect(r.body.paths[p], p).toBeDefined();
    expect(
      r.body.paths["/nodes/{name}/drain"].post.requestBody.content["application/json"].schema.properties.reason,
    ).toBeDefined();
  });
});
