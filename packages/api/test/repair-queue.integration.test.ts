import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeWorld, type World } from "./fixtures";

// The nodes page shows one cluster: its repair queue listed the nodes of every cluster (issue 16).
let w: World;

beforeAll(async () => {
  w = await makeWorld("api_repair_queue");
});
afterAll(async () => {
  await w?.db.drop();
});

describe("node.repairQueue", () => {
  it("lists the named cluster's nodes only, and every cluster's without a name", async () => {
    const p = w.db.prisma;
    const b200 = await p.node.findFirstOrThrow({ where: { cluster: { name: "b200" } }, orderBy: { name: "asc" } });
    const h100 = await p.node.findFirstOrThrow({ where: { cluster: { name: "h100" } }, orderBy: { name: "asc" } });
    await p.node.update({ where: { id: b200.id }, data: { state: "REPAIR", stateReason: "ECC errors" } });
    await p.node.update({ where: { id: h100.id }, data: { state: "DRAINING", stateReason: "fan", drainIsManual: true } });
    const omar = w.caller("omar");
    const one = await omar.node.repairQueue({ cluster: "b200" });
    expect(one.map((r) => [r.name, r.cluster, r.state])).toEqual([[b200.name, "b200", "REPAIR"]]);
    expect((await omar.node.repairQueue({ cluster: "h100" })).map((r) => r.name)).toEqual([h100.name]);
    expect(new Set((await omar.node.repairQueue()).map((r) => r.name))).toEqual(new Set([b200.name, h100.name]));
  });
});
