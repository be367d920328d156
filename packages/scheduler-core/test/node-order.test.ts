import { describe, expect, it } from "vitest";
import { createScheduler, defaultPolicy } from "../src/index";
import { makeCluster, makeJob, startsOf } from "@tranche/testkit";

// A scheduler reuses a node list's (name, id) order when the same nodes come back (the simulator
// passes one array every cycle); a list changed in place must be read afresh.
describe("node order across cycles", () => {
  const snapshot = () => makeCluster().nodes(3).budget("a", 1).job(makeJob("p").budget("a").gpus(3)).snapshot();
  const scheduler = createScheduler(defaultPolicy);
  const placedOn = (s: ReturnType<typeof snapshot>) => startsOf(scheduler.runCycle(s, 10))[0]!.placement[0]!.nodeId;

  it("sees a node renamed in the same array", () => {
    const s = snapshot();
    expect(placedOn(s)).toBe("n01"); // empty nodes tie: the first by name
    s.nodes[0]!.name = "zz";
    expect(placedOn(s)).toBe("n02");
    expect(placedOn({ ...s, nodes: s.nodes.map((n) => ({ ...n })) })).toBe("n02");
  });

  it("sees a node replaced in the same array", () => {
    const s = snapshot();
    expect(placedOn(s)).toBe("n01");
    s.nodes[0] = { ...s.nodes[0]!, id: "n09", name: "n09" };
    expect(placedOn(s)).toBe("n02");
    s.nodes.pop();
    expect(placedOn(s)).toBe("n02");
  });
});
