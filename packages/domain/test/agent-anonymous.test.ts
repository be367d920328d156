import { afterEach, describe, expect, it, vi } from "vitest";
import type { PrismaClient } from "@tranche/db";
import { LIMITS } from "@tranche/contracts";
import { agentReplyHeaders, handleAgentRequest } from "../src/runtime/agent-protocol";
import { resetAnonymousAgentRequests } from "../src/runtime/agent-anonymous";
import type { AgentWakeups } from "../src/runtime/agent-wait";
import { hashSecret } from "../src/runtime/credentials";

// Two enrolled nodes; every lookup waits until let go, as on a busy database.
const enrolled = { id: "node-a", name: "gpu-a", state: "READY", agentCredentialHash: hashSecret("good") };
const enrolledB = { id: "node-b", name: "gpu-b", state: "READY", agentCredentialHash: hashSecret("good-b") };
const credentialRows = () => [enrolled, enrolledB].map((n) => ({ agentCredentialHash: n.agentCredentialHash }));
const lookups: { hash: string; answer: () => void }[] = [];
const findUnique = vi.fn(
  ({ where }: { where: { agentCredentialHash: string } }) =>
    new Promise((resolve) =>
      lookups.push({
        hash: where.agentCredentialHash,
        answer: () => resolve([enrolled, enrolledB].find((n) => n.agentCredentialHash === where.agentCredentialHash) ?? null),
      }),
    ),
);
const findMany = vi.fn(async () => credentialRows());
const prisma = { node: { findUnique, findMany } } as unknown as PrismaClient;

function request(credential: string | null, client: string | null, route = "heartbeat") {
  const readBody = vi.fn(async () => "not json");
  const reply = handleAgentRequest(
    prisma,
    { method: "POST", route, authorization: credential === null ? null : `Bearer ${credential}`, readBody, client },
    { wakeups: {} as AgentWakeups },
  );
  return { reply, readBody };
}

afterEach(() => {
  resetAnonymousAgentRequests();
  lookups.length = 0;
  findUnique.mockClear();
  findMany.mockClear();
});

describe("agent requests from no enrolled node, per client address", () => {
  it("past the bound, an address's unknown credentials and enrollments are refused before any lookup; others go on", async () => {
    const bound = LIMITS.agentAnonymousRequestsInFlightPerAddress;
    // The enrolled credentials are read once, and none is asked for yet: wait for that read.
    const held = Array.from({ length: bound }, (_, i) => request(`wrong-${i}`, "10.0.0.9"));
    await vi.waitFor(() => expect(findUnique).toHaveBeenCalledTimes(bound));
    expect(findMany).toHaveBeenCalledOnce();

    for (const [credential, route] of [
      ["wrong-x", "heartbeat"],
      ["wrong-y", "wait"],
      [null, "enroll"],
    ] as const) {
      const refused = request(credential, "10.0.0.9", route);
      const reply = await refused.reply;
      expect(reply).toMatchObject({
        status: 429,
        body: { error: { code: "TOO_MANY_REQUESTS", message: expect.stringContaining(`already has ${bound} agent requests`) } },
      });
      expect(agentReplyHeaders(reply)["retry-after"]).toBe("1");
      expect(refused.readBody).not.toHaveBeenCalled();
    }
    expect(findUnique).toHaveBeenCalledTimes(bound);

    // The enrolled node's credential from that same address (one proxy for all) is not held back.
    const own = request("good", "10.0.0.9");
    await vi.waitFor(() => expect(findUnique).toHaveBeenCalledTimes(bound + 1));
    // Nor is another address's unknown credential, nor a request with none (refused without a lookup).
    const other = request("wrong-z", "10.0.0.10");
    await vi.waitFor(() => expect(findUnique).toHaveBeenCalledTimes(bound + 2));
    expect((await request(null, "10.0.0.9").reply).status).toBe(401);

    for (const l of lookups) l.answer();
    for (const h of held) expect((await h.reply).status).toBe(401);
    expect((await other.reply).status).toBe(401);
    expect((await own.reply).status).toBe(400); // its lookup held: its body was read (not JSON)

    // All ended: the address may send its bound again.
    const again = request("wrong-again", "10.0.0.9");
    await vi.waitFor(() => expect(findUnique).toHaveBeenCalledTimes(bound + 3));
    lookups.at(-1)!.answer();
    expect((await again.reply).status).toBe(401);
  });

  it("after a restart, enrolled agents' first requests wait for the one read of the credentials, and are not held back", async () => {
    let read!: () => void;
    findMany.mockImplementationOnce(() => new Promise((resolve) => (read = () => resolve(credentialRows()))));
    const bound = LIMITS.agentAnonymousRequestsInFlightPerAddress;
    // More enrolled nodes' requests than the bound, from one address (the proxy's), before the read answers.
    const first = [...Array.from({ length: bound }, () => request("good", "10.0.0.9")), request("good-b", "10.0.0.9")];
    await vi.waitFor(() => expect(findMany).toHaveBeenCalledOnce());
    expect(findUnique).not.toHaveBeenCalled();
    read();
    await vi.waitFor(() => expect(findUnique).toHaveBeenCalledTimes(bound + 1));
    for (const l of lookups) l.answer();
    for (const r of first) expect((await r.reply).status).toBe(400); // each lookup held: its body was read
  });

  it("clients whose address is not known share one bound", async () => {
    const bound = LIMITS.agentAnonymousRequestsInFlightPerAddress;
    const held = Array.from({ length: bound }, (_, i) => request(`wrong-${i}`, null));
    await vi.waitFor(() => expect(findUnique).toHaveBeenCalledTimes(bound));
    expect((await request("wrong-x", null).reply).status).toBe(429);
    for (const l of lookups) l.answer();
    await Promise.all(held.map((h) => h.reply));
  });
});
