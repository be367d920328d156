import { describe, expect, it, vi } from "vitest";
import type { PrismaClient } from "@tranche/db";
import { LIMITS } from "@tranche/contracts";
import { agentReplyHeaders, handleAgentRequest } from "../src/runtime/agent-protocol";
import type { AgentWakeups } from "../src/runtime/agent-wait";
import { hashSecret } from "../src/runtime/credentials";

// Two enrolled nodes, known by their credentials: enough to reach the body of their requests.
const nodes: Record<string, { id: string; name: string; state: string }> = {
  a: { id: "node-a", name: "gpu-a", state: "READY" },
  b: { id: "node-b", name: "gpu-b", state: "READY" },
};
const byCredential = new Map<string, { id: string; name: string; state: string }>();
const prisma = {
  node: {
    findUnique: vi.fn(
      async ({ where }: { where: { agentCredentialHash: string } }) => byCredential.get(where.agentCredentialHash) ?? null,
    ),
  },
} as unknown as PrismaClient;
const opts = { wakeups: {} as AgentWakeups };

// The database is asked for the credential's hash: each node is found under its own.
for (const [credential, node] of Object.entries(nodes)) byCredential.set(hashSecret(credential), node);

/** A request of `credential` whose body arrives only when `send` is called (a client still sending it). */
function stalled(credential: string, route = "heartbeat") {
  let send!: (body: string | null) => void;
  const readBody = vi.fn(() => new Promise<string | null>((resolve) => (send = resolve)));
  const reply = handleAgentRequest(prisma, { method: "POST", route, authorization: `Bearer ${credential}`, readBody }, opts);
  return { reply, readBody, send: (body: string | null) => send(body) };
}

describe("agent requests in flight, per node", () => {
  it("past the bound, a node's request is refused unread with 429; other nodes and later requests go on", async () => {
    const held = Array.from({ length: LIMITS.agentRequestsInFlightPerNode }, (_, i) =>
      stalled("a", i % 2 ? "wait" : "heartbeat"),
    );
    await vi.waitFor(() => expect(held.every((h) => h.readBody.mock.calls.length === 1)).toBe(true));

    const refused = stalled("a");
    const reply = await refused.reply;
    expect(reply).toMatchObject({
      status: 429,
      body: {
        error: {
          code: "TOO_MANY_REQUESTS",
          message: expect.stringContaining(`gpu-a already has ${LIMITS.agentRequestsInFlightPerNode} requests`),
        },
      },
    });
    expect(agentReplyHeaders(reply)["retry-after"]).toBe("1");
    expect(refused.readBody).not.toHaveBeenCalled();

    // Another node's requests are not counted with these.
    const other = stalled("b");
    await vi.waitFor(() => expect(other.readBody).toHaveBeenCalledOnce());
    other.send(null);
    expect((await other.reply).status).toBe(413);

    // One ends (its body over the limit): the node may send one more.
    held[0]!.send(null);
    expect((await held[0]!.reply).status).toBe(413);
    const next = stalled("a");
    await vi.waitFor(() => expect(next.readBody).toHaveBeenCalledOnce());
    for (const h of [...held.slice(1), next]) h.send("not json");
    for (const h of [...held.slice(1), next]) expect((await h.reply).status).toBe(400);

    // All ended: the node's count is back to nothing.
    const again = Array.from({ length: LIMITS.agentRequestsInFlightPerNode }, () => stalled("a"));
    await vi.waitFor(() => expect(again.every((h) => h.readBody.mock.calls.length === 1)).toBe(true));
    for (const h of again) h.send("not json");
    await Promise.all(again.map((h) => h.reply));
  });
});

describe("a node's heartbeats, one at a time", () => {
  it("a node's next heartbeat opens its database transaction only once its previous one has ended; other nodes' do not wait", async () => {
    // Each heartbeat's transaction stays open until let go, as one waiting for its node's row lock would.
    const letGo: (() => void)[] = [];
    const transaction = vi.fn(() => new Promise<void>((resolve) => letGo.push(resolve)));
    const db = { node: prisma.node, $transaction: transaction, $queryRaw: vi.fn(async () => []) } as unknown as PrismaClient;
    const beat = (credential: string) =>
      handleAgentRequest(
        db,
        {
          method: "POST",
          route: "heartbeat",
          authorization: `Bearer ${credential}`,
          readBody: async () =>
            JSON.stringify({
              nodeName: nodes[credential]!.name,
              agentVersion: "test",
              health: { healthy: true, errors: [] },
              gpus: [],
              busyPercent: null,
              jobs: [],
              logs: [],
            }),
        },
        opts,
      );

    const a = [beat("a"), beat("a"), beat("a")];
    const b = beat("b");
    // Node b's heartbeat, sent after node a's three, is in its transaction beside a's first only.
    await vi.waitFor(() => expect(transaction.mock.calls.length).toBeGreaterThanOrEqual(2));
    expect(transaction).toHaveBeenCalledTimes(2);
    // Each of a's goes in as the one before it ends: a's first, then its second (the latest in).
    letGo.shift()!();
    await vi.waitFor(() => expect(transaction).toHaveBeenCalledTimes(3));
    letGo.pop()!();
    await vi.waitFor(() => expect(transaction).toHaveBeenCalledTimes(4));
    while (letGo.length > 0) letGo.shift()!();
    for (const r of await Promise.all([...a, b])) expect(r.status).toBe(200);
  });
});
