import { describe, expect, it } from "vitest";
import { FairTree, treeShape, type KnownShape } from "../src/fair-tree";
import type { BudgetTreeNode } from "../src/types";

// A scheduler's memory reuses a tree's shape (order, parents, paths, effective allocations) when the
// same node objects come back unchanged (the simulator passes one array every cycle and only updates
// usage and entitlement); a tree changed in place must be read afresh.
describe("tree shape across cycles", () => {
  let known: KnownShape | null = null;
  /** A FairTree as a kept scheduler builds it: with the shape of the previous call, checked. */
  const kept = (t: BudgetTreeNode[], horizon: number): FairTree => {
    known = treeShape(t, known);
    return new FairTree(t, horizon, known.shape);
  };

  const tree = (): BudgetTreeNode[] => [
    { id: "root", name: "lab", parentId: null, allocationPpm: 1_000_000, usageGpuSeconds: 0, entitlementGpuSeconds: 100 },
    { id: "a", name: "a", parentId: "root", allocationPpm: 600_000, usageGpuSeconds: 30, entitlementGpuSeconds: 60 },
    { id: "b", name: "b", parentId: "root", allocationPpm: 400_000, usageGpuSeconds: 10, entitlementGpuSeconds: 40 },
  ];

  it("reads usage and entitlement every cycle from the same array", () => {
    known = null;
    const t = tree();
    const first = kept(t, 0);
    expect(first.ratio(first.indexOf("a")!)).toBe(0.5);
    t[1]!.usageGpuSeconds = 45;
    t[1]!.entitlementGpuSeconds = 90;
    const second = kept(t, 0);
    expect(second.shape).toBe(first.shape);
    expect(second.ratio(second.indexOf("a")!)).toBe(0.5);
    t[1]!.usageGpuSeconds = 90;
    expect(kept(t, 0).ratio(second.indexOf("a")!)).toBe(1);
  });

  it("sees an allocation, a name or a parent changed in place", () => {
    known = null;
    const t = tree();
    const first = kept(t, 0);
    expect(first.effectiveAllocation[first.indexOf("b")!]).toBeCloseTo(0.4);
    t[2]!.allocationPpm = 300_000;
    const second = kept(t, 0);
    expect(second.shape).not.toBe(first.shape);
    expect(second.effectiveAllocation[second.indexOf("b")!]).toBeCloseTo(0.3);
    t[2]!.name = "bee";
    expect(kept(t, 0).paths[second.indexOf("b")!]).toBe("lab/bee");
    t[2]!.parentId = "a";
    const moved = kept(t, 0);
    expect(moved.paths[moved.indexOf("b")!]).toBe("lab/a/bee");
  });

  it("sees a node replaced or removed in the same array", () => {
    known = null;
    const t = tree();
    kept(t, 0);
    t[2] = { ...t[2]!, id: "c", name: "c" };
    const replaced = kept(t, 0);
    expect(replaced.indexOf("b")).toBeUndefined();
    expect(replaced.indexOf("c")).toBeDefined();
    t.pop();
    expect(kept(t, 0).size).toBe(2);
  });

  it("is built afresh every time without a memory (the stateless runCycle)", () => {
    const t = tree();
    expect(new FairTree(t, 0).shape).not.toBe(new FairTree(t, 0).shape);
  });
});
