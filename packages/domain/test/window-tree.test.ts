import { describe, expect, it } from "vitest";
import { defaultPolicy } from "@tranche/scheduler-core";
import { windowTree, type WindowRows } from "../src/runtime/load-snapshot";

const HOUR = 3600;
const GPUS = 88;
// The cluster's first cycle ran at 18:22 (UTC); its worker has recorded capacity every few seconds since.
const hour18 = Date.UTC(2026, 11, 1, 18) / 1000;
const born = hour18 + 22 * 60;

/** The ledger rows a worker writes for a cluster of 88 healthy GPUs born at `born`, read at `now`. */
function rowsAt(now: number): WindowRows {
  const capacityRows: WindowRows["capacityRows"] = [];
  for (let h = hour18; h < now; h += HOUR) {
    const seconds = Math.min(h + HOUR, now) - Math.max(h, born);
    capacityRows.push({ hourStart: new Date(h * 1000), healthy: seconds * GPUS, total: seconds * GPUS });
  }
  return {
    treeRows: [
      { id: "lab", name: "lab", parentId: null, ppm: null },
      { id: "a", name: "a", parentId: "lab", ppm: 250_000 },
    ],
    history: [],
    capacityRows,
    usageRows: [],
  };
}

function entitlements(ageMinutes: number) {
  const now = born + ageMinutes * 60;
  const { tree, accruedEntitlement } = windowTree(rowsAt(now), {
    now,
    policy: defaultPolicy,
    healthyGpus: GPUS,
    totalGpus: GPUS,
    open: [],
  });
  const lab = tree.find((n) => n.id === "lab")!;
  return {
    ratioBasis: lab.entitlementGpuSeconds / HOUR,
    accrued: accruedEntitlement.lab! / HOUR,
    team: accruedEntitlement.a! / HOUR,
  };
}

describe("the budget tree's entitlement over a young cluster", () => {
  it("grows with the cluster's actual age, not from the top of its first hour", () => {
    expect(entitlements(4).accrued).toBeCloseTo((GPUS * 4) / 60, 6);
    expect(entitlements(26).accrued).toBeCloseTo((GPUS * 26) / 60, 6);
    expect(entitlements(26).team).toBeCloseTo((GPUS * 0.25 * 26) / 60, 6);
    // Past the first hour boundary (19:00) and past the first hour of age.
    expect(entitlements(48).accrued).toBeCloseTo((GPUS * 48) / 60, 6);
    expect(entitlements(90).accrued).toBeCloseTo((GPUS * 90) / 60, 6);
  });

  it("counts one full hour for ratios until the cluster itself is an hour old, then its real age", () => {
    // SPEC §2's young window floor runs from the cluster's start: still one hour at 48 minutes old (19:10).
    expect(entitlements(4).ratioBasis).toBeCloseTo(GPUS, 6);
    expect(entitlements(48).ratioBasis).toBeCloseTo(GPUS, 6);
    expect(entitlements(90).ratioBasis).toBeCloseTo((GPUS * 90) / 60, 6);
  });
});
