import { describe, expect, it } from "vitest";
import { makeCluster, makeJob } from "@tranche/testkit";
import { createScheduler, defaultPolicy, runCycle } from "../src/index";
import type { BudgetTreeNode, ClusterSnapshot, Node, PendingJob, RunningJob } from "../src/types";

/**
 * createScheduler keeps its working state only while the caller follows the rules in its doc comment
 * (scheduler.ts). Each test here breaks one rule after the state is kept and checks the cycle against
 * the stateless runCycle on a deep copy (a fresh build): a violated rule must cost speed, never a
 * different answer.
 */
function cluster(): ClusterSnapshot {
  return makeCluster()
    .nodes(4, 8)
    .budget("a", 0.6, { usage: 3_000_000, entitlement: 6_000_000 })
    .budget("b", 0.4, { usage: 3_000_000, entitlement: 3_000_000 })
    .job(
      makeJob("r1").budget("a").gpus(4).minRuntime(600).startedAt(0).on("n01", [0, 1, 2, 3]).running(),
      makeJob("r2").budget("b").gpus(4).minRuntime(600).startedAt(0).on("n01", [4, 5, 6, 7]).running(),
      makeJob("r3").budget("b").gpus(8).minRuntime(600).startedAt(0).on("n02").running(),
      makeJob("r4").budget("b").gpus(2).unallocated().startedAt(0).on("n03", [0, 1]).running(),
      makeJob("p1").budget("a").gpus(8).minRuntime(600).submittedAt(10).pending(),
      makeJob("p2").budget("b").gpus(4).minRuntime(600).submittedAt(20).pending(),
      makeJob("p3").budget("a").gpus(6).minRuntime(600).submittedAt(30).pending(),
    )
    .snapshot();
}

const fresh = (s: ClusterSnapshot, now: number): string =>
  JSON.stringify(runCycle(JSON.parse(JSON.stringify(s)) as ClusterSnapshot, defaultPolicy, now));

/** Three cycles on the same arrays (the board is kept from the second), then `change`, then one more. */
function afterChange(change: (s: ClusterSnapshot) => void): void {
  const s = cluster();
  const scheduler = createScheduler(defaultPolicy);
  for (let c = 0; c < 3; c++) {
    const now = 1000 + c * 60;
    for (const n of s.nodes) n.lastHeartbeatAt = now;
    expect(JSON.stringify(scheduler.runCycle(s, now)), `cycle ${c}`).toBe(fresh(s, now));
  }
  change(s);
  const now = 1200;
  for (const n of s.nodes) n.lastHeartbeatAt = now;
  expect(JSON.stringify(scheduler.runCycle(s, now))).toBe(fresh(s, now));
  // And the cycle after it, once the scheduler has rebuilt what it keeps.
  for (const n of s.nodes) n.lastHeartbeatAt = now + 60;
  expect(JSON.stringify(scheduler.runCycle(s, now + 60))).toBe(fresh(s, now + 60));
}

const running = (s: ClusterSnapshot): RunningJob[] => s.running as RunningJob[];
const nodes = (s: ClusterSnapshot): Node[] => s.nodes as Node[];
const tree = (s: ClusterSnapshot): BudgetTreeNode[] => s.tree as BudgetTreeNode[];
const pending = (s: ClusterSnapshot): PendingJob[] => s.pending as PendingJob[];

describe("createScheduler", () => {
  it("gives the stateless results when the caller follows the rules", () => {
    afterChange(() => {});
  });

  // A kept running job is frozen (kept-working-state.ts): an edit in place throws and changes nothing.
  it("refuses a running job edited in place", () => {
    afterChange((s) => {
      const r4 = running(s)[3]!;
      expect(() => r4.placement[0]!.gpuIndexes.splice(0, 2, 6, 7)).toThrow(TypeError); // n03 GPUs 0,1 -> 6,7
      expect(() => {
        r4.placement[0]!.nodeId = "n04";
      }).toThrow(TypeError);
      expect(() => {
        r4.placement.push({ nodeId: "n04", gpuIndexes: [0] });
      }).toThrow(TypeError);
      expect(() => {
        r4.placement = [];
      }).toThrow(TypeError);
      expect(() => {
        running(s)[1]!.budgetId = "a";
      }).toThrow(TypeError);
      expect(() => {
        running(s)[0]!.stopping = { byJobId: null, graceUntil: 1300 };
      }).toThrow(TypeError);
      expect(r4.placement).toEqual([{ nodeId: "n03", gpuIndexes: [0, 1] }]);
      expect(running(s)[1]!.budgetId).toBe("b");
      expect(running(s)[0]!.stopping).toBeNull();
    });
  });

  it("sees a running job replaced by a moved copy", () => {
    afterChange((s) => {
      running(s)[3] = { ...running(s)[3]!, placement: [{ nodeId: "n04", gpuIndexes: [6, 7] }] };
    });
  });

  it("sees a running job replaced by a copy in another budget", () => {
    afterChange((s) => {
      running(s)[1] = { ...running(s)[1]!, budgetId: "a" };
    });
  });

  it("sees a running job replaced by a stopping copy", () => {
    afterChange((s) => {
      running(s)[0] = { ...running(s)[0]!, stopping: { byJobId: null, graceUntil: 1300 } };
    });
  });

  it("sees a running list out of id order", () => {
    afterChange((s) => {
      running(s).reverse();
    });
  });

  it("sees a new running array with the same jobs", () => {
    afterChange((s) => {
      s.running = running(s).map((j) => ({ ...j, placement: j.placement.map((p) => ({ ...p, gpuIndexes: [...p.gpuIndexes] })) }));
    });
  });

  it("sees a node's state, health, size or name changed in place", () => {
    afterChange((s) => {
      nodes(s)[3]!.state = "CORDONED";
    });
    afterChange((s) => {
      nodes(s)[2]!.health = "UNHEALTHY";
    });
    afterChange((s) => {
      nodes(s)[3]!.gpuCount = 4;
    });
    afterChange((s) => {
      nodes(s)[0]!.name = "zz";
    });
  });

  it("sees a node replaced in the same array", () => {
    afterChange((s) => {
      nodes(s)[3] = { ...nodes(s)[3]!, id: "n09", name: "n00" };
    });
  });

  it("sees the budget tree changed in place", () => {
    afterChange((s) => {
      const b = tree(s).find((n) => n.id !== tree(s)[0]!.id && n.allocationPpm === 400_000)!;
      b.allocationPpm = 100_000;
    });
    afterChange((s) => {
      tree(s).find((n) => n.parentId !== null)!.name = "renamed";
    });
  });

  // Pending jobs admitted once keep their entries (kept-admission.ts) and are frozen: an edit in place
  // throws and changes nothing; a job replaced by an edited copy, or a budget's entitlement gone, is
  // admitted afresh.
  it("refuses a pending job edited in place", () => {
    afterChange((s) => {
      expect(() => {
        pending(s)[2]!.gpus = 12;
      }).toThrow(TypeError);
      expect(() => {
        pending(s)[0]!.held = true;
      }).toThrow(TypeError);
      expect(() => {
        pending(s)[1]!.minRuntime = 0;
      }).toThrow(TypeError);
      expect(pending(s)[2]!.gpus).toBe(6);
      expect(pending(s)[0]!.held).toBeFalsy();
      expect(pending(s)[1]!.minRuntime).toBe(600);
    });
  });

  it("sees a pending job replaced by a copy with other GPUs, runtimes or budget", () => {
    afterChange((s) => {
      pending(s)[2] = { ...pending(s)[2]!, gpus: 12 }; // p3: 6 -> 12, not a multiple of the node size (INVALID_CONTRACT)
    });
    afterChange((s) => {
      pending(s)[1] = { ...pending(s)[1]!, minRuntime: 0 }; // p2 becomes unallocated work
    });
    afterChange((s) => {
      pending(s)[0] = { ...pending(s)[0]!, budgetId: "b" };
    });
  });

  it("sees a pending job replaced by a held copy, or one with a dependency", () => {
    afterChange((s) => {
      pending(s)[0] = { ...pending(s)[0]!, held: true };
    });
    afterChange((s) => {
      pending(s)[0] = { ...pending(s)[0]!, dependencies: [{ jobId: "r1", condition: "ok", state: "WAITING" }] };
    });
  });

  it("sees a budget's entitlement gone (its jobs change lane)", () => {
    afterChange((s) => {
      const b = tree(s).find((n) => n.allocationPpm === 400_000)!;
      b.entitlementGpuSeconds = 0;
    });
  });
});
