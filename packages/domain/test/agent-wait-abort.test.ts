import { expect, it } from "vitest";
import { AgentWakeups } from "../src/runtime/agent-wait";

it("answers a long-poll at once when its signal was aborted before it registered (the server is stopping)", async () => {
  // No database is reached: registering a waiter connects nothing.
  const wakeups = new AgentWakeups("postgresql://127.0.0.1:1/none");
  const stopping = new AbortController();
  stopping.abort();
  const w = wakeups.register("node-1", 25_000, stopping.signal);
  const first = await Promise.race([w.woken, new Promise<string>((r) => setTimeout(() => r("still waiting"), 500))]);
  expect(first).toBe(false);
  expect(wakeups.waiting).toBe(0);
});
