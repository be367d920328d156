import { describe, expect, it } from "vitest";
import { LIMITS } from "@tranche/contracts";
import { enterCalls } from "../src/request-gate";
import { TooManyRequests } from "../src/too-many-requests";

// One person's calls in flight are bounded (a batch of 150 queue reads once stopped every node's jobs).
describe("calls in flight per person", () => {
  it("counts each call of a batch, refuses past the bound with a wait, and frees on leave, once", () => {
    const leaveBatch = enterCalls("gate-a", LIMITS.callsInFlightPerUser - 1);
    const leaveOne = enterCalls("gate-a");
    let refused: unknown = null;
    try {
      enterCalls("gate-a");
    } catch (e) {
      refused = e;
    }
    expect(refused).toBeInstanceOf(TooManyRequests);
    expect((refused as TooManyRequests).retryAfterSec).toBe(1);
    expect((refused as TooManyRequests).message).toMatch(/at most 16 calls may run at once for one person/);
    // Another person is not held up by the first.
    enterCalls("gate-b", LIMITS.callsInFlightPerUser)();
    leaveOne();
    leaveOne(); // a second call frees nothing more
    expect(() => enterCalls("gate-a", 2)).toThrow(TooManyRequests);
    enterCalls("gate-a")();
    leaveBatch();
    enterCalls("gate-a", LIMITS.callsInFlightPerUser)();
  });
});
