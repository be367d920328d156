import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@tranche/domain";
import { callRest, goodJob, makeWorld, type World } from "./fixtures";

// `nodes` / `excludeNodes` (Slurm's --nodelist / --exclude) at submit and update, REST and tRPC: the
// checks, that a refused one writes nothing, who may change them, and what the job shows.

let w: World;
const tokens: Record<string, string> = {};
const who = ["ada", "maya", "victor", "omar", "admin", "other"] as const;

beforeAll(async () => {
  w = await makeWorld("api_node_lists");
  for (const u of who) tokens[u] = (await createApiToken(w.db.prisma, w.users[u], { name: "test" })).token;
});
afterAll(async () => {
  await w?.db.drop();
});

const post = (body: unknown) => callRest(w, "POST", "/jobs", { token: tokens.ada!, body });
const patch = (u: (typeof who)[number], id: number, body: unknown) =>
  callRest(w, "PATCH", `/jobs/${id}`, { token: tokens[u]!, body });
const many = Array.from({ length: 65 }, (_, i) => `h100-${i % 32}-${i}`);

describe("submit checks the node lists against the cluster, and a refused job writes nothing", () => {
  const cases: [object, string, string | RegExp][] = [
    [{ nodes: ["h100-99"] }, "nodes", "cluster 'h100' has no node 'h100-99'"],
    [{ excludeNodes: ["h100-1", "gpu-7"] }, "excludeNodes", "cluster 'h100' has no node 'gpu-7'"],
    [
      { nodes: ["h100-1", "h100-2"], excludeNodes: ["h100-2"] },
      "excludeNodes",
      "node 'h100-2' is both to run on and to avoid: a job cannot be kept off a node it must run on",
    ],
    [{ nodes: [] }, "nodes", "nodes must name at least one node (leave it out for none)"],
    [{ nodes: many }, "nodes", "nodes names at most 64 nodes"],
    [{ nodes: "h100-1" }, "nodes", /^nodes must be a list of node names/],
    [{ gpus: 16, nodes: ["h100-1"] }, "nodes", "16 GPUs need 2 whole nodes of 8 GPUs, but the job may use only 1 (h100-1)"],
    [
      { gpus: 256, excludeNodes: ["h100-0"] },
      "excludeNodes",
      /^256 GPUs need 32 whole nodes of 8 GPUs, but the job may use only 31 \(h100-1, /,
    ],
  ];

  it("REST: 400 naming the field", async () => {
    const before = await w.counts();
    for (const [over, field, message] of cases) {
      const r = await post({ ...goodJob, ...over });
      expect([r.status, r.body.error.field ?? r.body.error.issues?.[0]?.path]).toEqual([400, field]);
      expect(r.body.error.message).toMatch(message);
    }
    expect(await w.counts()).toEqual(before);
  });

  it("tRPC: the same refusals", async () => {
    const before = await w.counts();
    for (const [over, , message] of cases) {
      const p = w.caller("ada").job.submit({ ...goodJob, ...over } as never);
      await expect(p).rejects.toMatchObject({ code: "BAD_REQUEST" });
      // tRPC carries zod's issues as JSON: the sentence is inside.
      await expect(p).rejects.toThrow(typeof message === "string" ? message : new RegExp(message.source.slice(1)));
    }
    expect(await w.counts()).toEqual(before);
  });

  it("a good one is stored and shown, names once each", async () => {
    const r = await post({ ...goodJob, gpus: 16, nodes: ["h100-3", "h100-4", "h100-3"], excludeNodes: ["h100-9"] });
    expect(r.status).toBe(201);
    expect([r.body.job.nodes, r.body.job.excludeNodes]).toEqual([["h100-3", "h100-4"], ["h100-9"]]);
    const got = await callRest(w, "GET", `/jobs/${r.body.job.id}`, { token: tokens.ada! });
    expect([got.body.job.nodes, got.body.job.excludeNodes]).toEqual([["h100-3", "h100-4"], ["h100-9"]]);
    const row = await w.db.prisma.job.findUniqueOrThrow({ where: { id: r.body.job.id } });
    expect([row.nodeList, row.excludeNodes]).toEqual([["h100-3", "h100-4"], ["h100-9"]]);
    const plain = await post(goodJob);
    expect([plain.body.job.nodes, plain.body.job.excludeNodes]).toEqual([[], []]);
  });
});

describe("update changes the node lists of a waiting job with submit's checks", () => {
  const adaJob = async () => (await w.caller("ada").job.submit({ ...goodJob, nodes: ["h100-5"] })).id;
  const row = (id: number) => w.db.prisma.job.findUniqueOrThrow({ where: { id } });

  it("who may: its owner, a manager of its subtree, operators and admins; a manager outside it and other users may not", async () => {
    const id = await adaJob();
    for (const u of ["victor", "other"] as const) {
      expect((await patch(u, id, { nodes: ["h100-6"] })).status).toBe(403);
      await expect(w.caller(u).job.update({ id, nodes: ["h100-6"] })).rejects.toMatchObject({ code: "FORBIDDEN" });
    }
    expect((await row(id)).nodeList).toEqual(["h100-5"]);
    for (const [u, node] of [
      ["ada", "h100-6"],
      ["maya", "h100-2"],
      ["omar", "h100-7"],
      ["admin", "h100-8"],
    ] as const) {
      const r = await patch(u, id, { nodes: [node] });
      expect([u, r.status, r.body.job?.nodes]).toEqual([u, 200, [node]]);
    }
    expect((await w.caller("ada").job.update({ id, nodes: null })).job.nodes).toEqual([]);
    expect((await row(id)).nodeList).toEqual([]);
    const event = await w.db.prisma.jobEvent.findFirstOrThrow({ where: { jobId: id, kind: "UPDATED" }, orderBy: { id: "desc" } });
    expect(event.sentence).toBe("Ada Researcher changed nodes h100-8 -> any.");
  });

  it("refuses what submit refuses, against the lists as they would be, and changes nothing", async () => {
    const id = await adaJob();
    const before = await row(id);
    const cases: [object, string, string][] = [
      [{ nodes: ["h100-77"] }, "nodes", "cluster 'h100' has no node 'h100-77'"],
      // The kept list and the new one.
      [
        { excludeNodes: ["h100-5"] },
        "excludeNodes",
        "node 'h100-5' is both to run on and to avoid: a job cannot be kept off a node it must run on",
      ],
      [{ gpus: 16 }, "nodes", "16 GPUs need 2 whole nodes of 8 GPUs, but the job may use only 1 (h100-5)"],
      [{ nodes: [] }, "nodes", "nodes must name at least one node (leave it out for none)"],
    ];
    for (const [over, field, message] of cases) {
      const r = await patch("ada", id, over);
      expect([r.status, r.body.error.field ?? r.body.error.issues?.[0]?.path, r.body.error.message]).toEqual([
        400,
        field,
        message,
      ]);
    }
    expect({ ...(await row(id)), updatedAt: null }).toEqual({ ...before, updatedAt: null });
  });
});
