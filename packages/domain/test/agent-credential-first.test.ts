import { describe, expect, it, vi } from "vitest";
import type { PrismaClient } from "@tranche/db";
import { handleAgentRequest } from "../src/runtime/agent-protocol";
import type { AgentWakeups } from "../src/runtime/agent-wait";

// A database that knows no node credential: enough to refuse a caller before anything else is looked at.
const noNodes = { node: { findUnique: vi.fn(async () => null) } } as unknown as PrismaClient;
// The long-poll is served only with this process's wakeups; it is never reached here.
const opts = { wakeups: {} as AgentWakeups };

describe("agent requests: the node credential before the body", () => {
  for (const route of ["heartbeat", "wait"]) {
    it(`${route}: a request without a credential is refused unread`, async () => {
      const readBody = vi.fn(() => new Promise<string | null>(() => {})); // a client that never finishes sending
      const reply = await handleAgentRequest(noNodes, { method: "POST", route, authorization: null, readBody }, opts);
      expect(reply.status).toBe(401);
      expect(readBody).not.toHaveBeenCalled();
    });

    it(`${route}: an unknown credential is refused unread`, async () => {
      const readBody = vi.fn(() => new Promise<string | null>(() => {}));
      const reply = await handleAgentRequest(
        noNodes,
        {
          method: "POST",
          route,
          authorization: "Bearer not-a-node",
          readBody,
        },
        opts,
      );
      expect(reply).toMatchObject({
        status: 401,
        body: { error: { message: expect.stringMatching(/enroll this agent again/) } },
      });
      expect(readBody).not.toHaveBeenCalled();
    });
  }

  it("enrollment, whose token travels in its body, still reads it", async () => {
    const readBody = vi.fn(async () => "not json");
    const reply = await handleAgentRequest(noNodes, { method: "POST", route: "enroll", authorization: null, readBody }, opts);
    expect(reply.status).toBe(400);
    expect(readBody).toHaveBeenCalledOnce();
  });
});
