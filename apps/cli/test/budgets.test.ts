import { describe, expect, it } from "vitest";
import type { BudgetNodeStats, BudgetTreeNodeView, BudgetTreeResult } from "@tranche/contracts";
import { allocationsText, budgetsCommandText, budgetsText } from "../src/budgets";

const stats = (s: Partial<BudgetNodeStats>): BudgetNodeStats => ({
  ppm: 1_000_000,
  effective: 1,
  usageGpuSeconds: null,
  entitlementGpuSeconds: null,
  accruedEntitlementGpuSeconds: null,
  ratio: null,
  heldGpus: null,
  ...s,
});

const node = (path: string, s: Partial<BudgetNodeStats>, children: BudgetTreeNodeView[] = []): BudgetTreeNodeView => ({
  id: path,
  name: path.split("/").at(-1)!,
  path,
  parentId: path.includes("/") ? path.split("/").slice(0, -1).join("/") : null,
  isBudget: children.length === 0,
  editable: false,
  managesChildren: false,
  takesChildren: false,
  members: 1,
  maxGpusPerUser: null,
  perCluster: { h100: stats(s) },
  children,
});

describe("tranche budgets", () => {
  it("shows the tree with shares, GPUs held, usage against entitlement and the share used, in words", () => {
    const now = Date.parse("2026-12-06T18:00:00Z");
    const tree: BudgetTreeResult = {
      clusters: [
        { id: "c", name: "h100", gpuType: "H100", gpus: 256, cycleAt: "2026-12-06T17:59:57Z", createdAt: "2026-12-01T00:00:00Z" },
      ],
      managedPaths: ["lab/language"],
      root: node(
        "lab",
        { usageGpuSeconds: 3600 * 30_000, accruedEntitlementGpuSeconds: 3600 * 40_000, ratio: 0.75, heldGpus: 250 },
        [
          node(
            "lab/language",
            {
              ppm: 400_000,
              effective: 0.4,
              usageGpuSeconds: 3600 * 20_000,
              accruedEntitlementGpuSeconds: 3600 * 16_000,
              ratio: 1.25,
              heldGpus: 150,
            },
            [
              node("lab/language/pretraining", {
                ppm: 600_000,
                effective: 0.24,
                ratio: 1.4,
                heldGpus: 150,
                usageGpuSeconds: 0,
                entitlementGpuSeconds: 3600,
              }),
            ],
          ),
          node("lab/vision", { ppm: 0, effective: 0 }),
        ],
      ),
    };
    expect(budgetsText(tree, "h100", now, 200).split("\n")).toEqual([
      "Budgets on h100 (256 GPUs; the scheduler's figures of 3 s ago):",
      "BUDGET                   SHARE OF PARENT  OF CLUSTER         GPUS HELD  USED / EARNED (GPU-H, 7 D)  USED OF SHARE (7 D)",
      "lab                      100%             100.0% (256 GPUs)  250        30,000 / 40,000             75% of its share",
      "  language (you manage)  40%              40.0% (102 GPUs)   150        20,000 / 16,000             1.3 times its share",
      "    pretraining          60%              24.0% (61 GPUs)    150        0.0 / 1.0                   1.4 times its share",
      "  vision                 0%               0.0% (0 GPUs)      -          -                           no share",
    ]);
  });

  it("says under the tree of a cluster younger than an hour that its ratios count one full hour of entitlement", () => {
    const now = Date.parse("2026-12-06T18:00:00Z");
    const tree = (createdAt: string): BudgetTreeResult => ({
      clusters: [{ id: "c", name: "h100", gpuType: "H100", gpus: 8, cycleAt: "2026-12-06T17:59:57Z", createdAt }],
      managedPaths: [],
      root: node("lab", { usageGpuSeconds: 4 * 3600, accruedEntitlementGpuSeconds: 3600, ratio: 0.36, heldGpus: 8 }),
    });
    const young = budgetsText(tree("2026-12-06T17:20:00Z"), "h100", now, 200).split("\n");
    expect(young.slice(1, 3)).toEqual([
      "BUDGET  SHARE OF PARENT  OF CLUSTER       GPUS HELD  USED / EARNED (GPU-H, 7 D)  USED OF SHARE (7 D)",
      "lab     100%             100.0% (8 GPUs)  8          4.0 / 1.0                   36% of its share",
    ]);
    expect(young.slice(3)).toEqual([
      "",
      "This cluster started less than an hour ago. Entitlement shows what each budget has earned so far; until the cluster is an hour old, its ratio divides usage by one full hour of entitlement, so ratios mean something from the first minute.",
    ]);
    // An hour old: the ratios are over what it earned, and the note goes.
    expect(budgetsText(tree("2026-12-06T17:00:00Z"), "h100", now, 200)).not.toContain("less than an hour");
  });

  it("prints GPU-hours under 100 with one decimal, as the Budgets page does (3.5 / 2.2, not 4 / 2)", () => {
    const now = Date.parse("2026-12-06T18:00:00Z");
    const tree: BudgetTreeResult = {
      clusters: [
        { id: "c", name: "h100", gpuType: "H100", gpus: 8, cycleAt: "2026-12-06T17:59:57Z", createdAt: "2026-12-01T00:00:00Z" },
      ],
      managedPaths: [],
      root: node("lab", { usageGpuSeconds: 4 * 3600, accruedEntitlementGpuSeconds: 3600 * 4.4 }, [
        node("lab/science", {
          ppm: 500_000,
          effective: 0.5,
          usageGpuSeconds: 3.5 * 3600,
          accruedEntitlementGpuSeconds: 2.2 * 3600,
          ratio: 0.2,
        }),
        node("lab/biology", {
          ppm: 500_000,
          effective: 0.5,
          usageGpuSeconds: 0.5 * 3600,
          accruedEntitlementGpuSeconds: 0.4 * 3600,
          ratio: 0.13,
        }),
      ]),
    };
    const text = budgetsText(tree, "h100", now, 200);
    expect(text).toMatch(/science .* 3\.5 \/ 2\.2 .* 20% of its share/);
    expect(text).toMatch(/biology .* 0\.5 \/ 0\.4 .* 13% of its share/);
  });

  it("lists the budgets that have a per-user limit, in tranche limit's words, and nothing when none has", () => {
    const now = Date.parse("2026-12-06T18:00:00Z");
    const limited = { ...node("lab/nlp", { ppm: 500_000, effective: 0.5 }), maxGpusPerUser: 16 };
    const tree: BudgetTreeResult = {
      clusters: [
        { id: "c", name: "h100", gpuType: "H100", gpus: 8, cycleAt: "2026-12-06T17:59:57Z", createdAt: "2026-12-01T00:00:00Z" },
      ],
      managedPaths: [],
      root: node("lab", {}, [limited, node("lab/vision", { ppm: 500_000, effective: 0.5 })]),
    };
    const text = budgetsText(tree, "h100", now, 200);
    expect(text.split("\n").slice(-2)).toEqual([
      "Per-user limits (tranche limit):",
      "  lab/nlp: each user's jobs may hold at most 16 GPUs at once.",
    ]);
    expect(budgetsText({ ...tree, root: node("lab", {}, [node("lab/vision", {})]) }, "h100", now, 200)).not.toContain("Per-user");
  });

  it("prints every cluster's tree when none is named, and the one named when one is", () => {
    const now = Date.parse("2026-12-06T18:00:00Z");
    const cluster = (name: string) => ({
      id: name,
      name,
      gpuType: "GPU",
      gpus: 8,
      cycleAt: null,
      createdAt: "2026-12-01T00:00:00Z",
    });
    const lab = node("lab", {});
    const tree: BudgetTreeResult = {
      clusters: [cluster("b200"), cluster("h100")],
      managedPaths: [],
      root: { ...lab, perCluster: { b200: lab.perCluster.h100!, h100: lab.perCluster.h100! } },
    };
    const all = budgetsCommandText(tree, undefined, now, 200);
    expect(all).toContain("Budgets on b200 (8 GPUs; no scheduling cycle yet):");
    expect(all).toContain("Budgets on h100 (8 GPUs; no scheduling cycle yet):");
    expect(budgetsCommandText(tree, "h100", now, 200)).not.toContain("b200");
    expect(() => budgetsCommandText(tree, "a100", now)).toThrow("There is no cluster 'a100' (clusters: b200, h100)");
    expect(() => budgetsCommandText({ ...tree, clusters: [] }, undefined, now)).toThrow("There is no cluster yet");
  });

  it("says each allocation change in a line: when, where, from and to, who and why", () => {
    const row = { id: "1", at: "2026-12-06T15:41:34Z", path: "lab/language", cluster: "h100", fromPpm: 400_000, toPpm: 450_000 };
    expect(
      allocationsText(
        [
          { ...row, actor: "Maya Manager", note: "more for the eval push" },
          { ...row, id: "2", fromPpm: 0, toPpm: 125_000, actor: null, note: null },
        ],
        "UTC",
      ),
    ).toBe(
      "6 Dec, 15:41:34  lab/language on h100: 40% -> 45%, by Maya Manager (more for the eval push)\n" +
        "6 Dec, 15:41:34  lab/language on h100: 0% -> 12.5%",
    );
    expect(allocationsText([])).toBe("No allocation changes.");
  });
});
