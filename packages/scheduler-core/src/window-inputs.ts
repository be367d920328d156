// Inputs of the window helpers (usage and entitlement, SPEC §2), part of the stable contract
// re-exported by types.ts: changes are additive only.

/** A charged run segment or a usage ledger row: `gpus` GPUs charged to `budgetId` from start to end. */
export interface UsageSegment {
  budgetId: string;
  gpus: number;
  start: number;
  /** null = still running (counted up to `now`). */
  end: number | null;
}

/** Append-only allocation history: from `at`, `treeNodeId` has `allocationPpm` on this cluster. */
export interface AllocationChange {
  treeNodeId: string;
  at: number;
  allocationPpm: number;
}

/** Healthy GPU capacity of the cluster from `at` on (piecewise constant). */
export interface CapacityChange {
  at: number;
  healthyGpus: number;
}
