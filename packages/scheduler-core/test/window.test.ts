import { describe, expect, it } from "vitest";
import { computeEntitlements, computeUsage, defaultPolicy, validateBudgetTree, withWindowAggregates } from "../src/index";

const tree = [
  { id: "root", name: "lab", parentId: null, allocationPpm: 1_000_000 },
  { id: "a", name: "a", parentId: "root", allocationPpm: 600_000 },
  { id: "a1", name: "a1", parentId: "a", allocationPpm: 500_000 },
  { id: "b", name: "b", parentId: "root", allocationPpm: 400_000 },
];
const DAY = 86_400;
const policy = { ...defaultPolicy, lookbackWindow: DAY, projectionHorizon: 3600 };

describe("computeUsage", () => {
  it("clips segments to the window, counts running ones up to now and sums children into parents", () => {
    const now = 10 * DAY;
    const usage = computeUsage(
      [
        { budgetId: "a1", gpus: 8, start: now - 2 * DAY, end: now - DAY + 100 }, // 100 s inside
        { budgetId: "a1", gpus: 2, start: now - 50, end: null }, // running
        { budgetId: "b", gpus: 4, start: now - 3 * DAY, end: now - 2 * DAY }, // outside
        { budgetId: "ghost", gpus: 4, start: now - 10, end: now }, // unknown budget
      ],
      tree,
      now,
      policy,
    );
    expect(usage).toEqual({ root: 900, a: 900, a1: 900, b: 0 });
  });
});

describe("computeEntitlements", () => {
  it("integrates allocation history times healthy capacity over the window", () => {
    const now = 10 * DAY;
    const ent = computeEntitlements(
      tree,
      [
        { treeNodeId: "a", at: 0, allocationPpm: 600_000 },
        { treeNodeId: "a", at: now - DAY / 2, allocationPpm: 300_000 }, // halved for the second half
      ],
      [{ at: 0, healthyGpus: 100 }],
      now,
      policy,
    );
    // a: 0.6*100*43200 + 0.3*100*43200; a1 is half of a; b has no history and keeps 0.4.
    expect(ent.a).toBe(Math.round(0.6 * 100 * 43_200 + 0.3 * 100 * 43_200));
    expect(ent.a1).toBe(Math.round(0.5 * (0.6 * 100 * 43_200 + 0.3 * 100 * 43_200)));
    expect(ent.b).toBe(0.4 * 100 * DAY);
    expect(ent.root).toBe(100 * DAY);
  });

  it("follows healthy capacity changes", () => {
    const ent = computeEntitlements(
      tree,
      [],
      [
        { at: 0, healthyGpus: 100 },
        { at: DAY / 2, healthyGpus: 50 },
      ],
      DAY,
      policy,
    );
    expect(ent.root).toBe(100 * 43_200 + 50 * 43_200);
  });

  it("counts at least projectionHorizon of time before a full window has passed", () => {
    // A cluster that came up 10 minutes ago: 600 s integrated + 3000 s padded at the current rate.
    const ent = computeEntitlements(tree, [], [{ at: 5000, healthyGpus: 80 }], 5600, policy);
    expect(ent.root).toBe(80 * 3600);
    expect(ent.b).toBe(Math.round(0.4 * 80 * 3600));
    // Once the horizon has passed, no padding.
    const later = computeEntitlements(tree, [], [{ at: 5000, healthyGpus: 80 }], 5000 + 7200, policy);
    expect(later.root).toBe(80 * 7200);
  });

  it("pads a budget created inside the window so its ratio is finite from the first cycle", () => {
    const now = 10 * DAY;
    const ent = computeEntitlements(
      tree,
      [{ treeNodeId: "b", at: now - 60, allocationPpm: 400_000 }],
      [{ at: 0, healthyGpus: 100 }],
      now,
      policy,
    );
    expect(ent.b).toBe(Math.round(0.4 * 100 * 3600));
  });

  it("builds the snapshot tree with both aggregates", () => {
    const t = withWindowAggregates(tree, { a1: 5 }, { a1: 7 });
    expect(t.find((x) => x.id === "a1")).toMatchObject({ usageGpuSeconds: 5, entitlementGpuSeconds: 7 });
    expect(t.find((x) => x.id === "b")).toMatchObject({ usageGpuSeconds: 0, entitlementGpuSeconds: 0 });
  });
});

describe("validateBudgetTree", () => {
  it("accepts a tree whose siblings sum to at most 100%", () => {
    expect(validateBudgetTree(tree)).toEqual({ ok: true });
  });

  it("rejects siblings above 100%, orphans, cycles and several roots with specific messages", () => {
    const bad = validateBudgetTree([
      ...tree.map((t) => (t.id === "b" ? { ...t, allocationPpm: 400_001 } : t)),
      { id: "o", name: "orphan", parentId: "nowhere", allocationPpm: 0 },
      { id: "x", name: "x", parentId: "y", allocationPpm: 0 },
      { id: "y", name: "y", parentId: "x", allocationPpm: 0 },
      { id: "r2", name: "second root", parentId: null, allocationPpm: 1_000_000 },
    ]);
    expect(bad.ok).toBe(false);
    const errors = bad.ok ? [] : bad.errors;
    expect(errors).toContain("children of lab are allocated 100.0001% in total, above 100%");
    expect(errors).toContain("orphan is an orphan: parent nowhere does not exist");
    expect(errors.some((e) => e.startsWith("the tree has a cycle"))).toBe(true);
    expect(errors).toContain("the tree must have exactly one root, found 2");
  });
});
