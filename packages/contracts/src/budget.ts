import { defaultPolicy } from "@tranche/scheduler-core";
import { z } from "zod";
import { strictObject, text, typeError } from "./input";

export const PPM = 1_000_000;

/** Set the allocations of some children of one tree node on one cluster (SPEC §2: exact ppm). */
const allocationsShape = {
  cluster: text("cluster").min(1, "cluster is required").max(200),
  parentId: text("parentId").min(1, "parentId is required").max(200).describe("The tree node whose children are edited"),
  allocations: z
    .array(
      strictObject(
        {
          treeNodeId: text("treeNodeId").min(1).max(200),
          ppm: z
            .number()
            .int("allocations are whole ppm (1,000,000 = 100%)")
            .min(0, "an allocation cannot be negative")
            .max(PPM, "an allocation cannot exceed 100%"),
        },
        "an allocation",
      ),
    )
    .min(1, "nothing to change")
    .max(10_000, "at most 10,000 allocations at once"),
  note: text("note").max(500, "note is longer than 500 characters").optional(),
};
export const setAllocationsInput = strictObject(allocationsShape, "an allocation change");
export type SetAllocationsInput = z.input<typeof setAllocationsInput>;

/** REST GET /allocation-changes: a query string, so the limit comes as text. */
export const allocationChangesQuery = strictObject(
  {
    cluster: text("cluster").min(1, "cluster is empty").max(200).optional(),
    path: text("path").min(1, "path is empty").max(1000).optional(),
    limit: z.coerce
      .number({ error: typeError("limit", "limit must be a number") })
      .int("limit must be a whole number")
      .min(1, "limit must be between 1 and 500")
      .max(500, "limit must be between 1 and 500")
      .default(50),
  },
  "the allocation history's query",
);

export const allocationHistoryInput = strictObject(
  {
    cluster: text("cluster").max(200).optional(),
    treeNodeId: text("treeNodeId").max(200).optional(),
    limit: z.number().int().min(1).max(500).default(50),
  },
  "an allocation history query",
);

/** "45%", "12.5%", "33.3333%": ppm shown exactly enough to add up. */
export function formatPpm(ppm: number): string {
  const pct = ppm / 10_000;
  return `${Number.isInteger(pct) ? pct : Number(pct.toFixed(4))}%`;
}

/** Percent text -> ppm, exact for up to 4 decimals ("12.5" -> 125000). null when unreadable. */
export function parsePercentToPpm(text: string): number | null {
  const s = text.trim().replace(/%$/, "").trim();
  if (!/^\d+(\.\d{1,4})?$/.test(s)) return null;
  const [int, frac = ""] = s.split(".");
  return Number(int) * 10_000 + Number((frac + "0000").slice(0, 4));
}

/** A what-if preview: the same shape as a change, nothing stored. */
export const whatIfInput = strictObject(
  { ...allocationsShape, limit: z.number().int().min(1).max(200).default(25) },
  "a what-if preview",
);
export type WhatIfInput = z.input<typeof whatIfInput>;

/** A pending job's place in the queue without and with the change (1 = first), and whether it starts now. */
export interface WhatIfJobRow {
  jobId: string;
  name: string;
  budget: string;
  gpus: number;
  before: number | null;
  after: number | null;
  startsBefore: boolean;
  startsAfter: boolean;
}

/** What a what-if preview answers: the budgets page, REST and the CLI read the same shape. */
export interface WhatIfResult {
  cluster: string;
  at: string;
  siblingsSumPpm: number;
  valid: boolean;
  problem: string | null;
  ratios: { treeNodeId: string; path: string; before: number | null; after: number | null }[];
  order: WhatIfJobRow[];
  pendingCount: number;
  moved: number;
}

// The budget tree as GET /budgets answers it (the budgets page, `tranche budgets`): each node's
// allocation per cluster and the latest cycle's usage, entitlement, ratio and held GPUs.
export interface BudgetNodeStats {
  /** this node's allocation on the cluster, ppm of its parent's */
  ppm: number;
  /** product of allocations along the path, fraction of the cluster */
  effective: number;
  usageGpuSeconds: number | null;
  /** the entitlement behind the ratio: on a cluster younger than an hour, at least one hour's (SPEC §2) */
  entitlementGpuSeconds: number | null;
  /** the entitlement earned in the window so far, which grows with the cluster's actual age */
  accruedEntitlementGpuSeconds: number | null;
  ratio: number | null;
  heldGpus: number | null;
}

export interface BudgetTreeNodeView {
  id: string;
  name: string;
  path: string;
  parentId: string | null;
  isBudget: boolean;
  /** the actor may change this node's allocation (it sits inside a subtree they manage) */
  editable: boolean;
  /** the actor may edit this node's children (they manage it or an ancestor) */
  managesChildren: boolean;
  /** the server accepts it as a parent: no pending or running job is charged to it and it has no members */
  takesChildren: boolean;
  members: number;
  /** A budget's per-user GPU limit (USER_LIMIT), set by its managers; null = none. */
  maxGpusPerUser: number | null;
  perCluster: Record<string, BudgetNodeStats>;
  children: BudgetTreeNodeView[];
}

export interface BudgetTreeResult {
  clusters: { id: string; name: string; gpuType: string; gpus: number; cycleAt: string | null; createdAt: string }[];
  root: BudgetTreeNodeView | null;
  managedPaths: string[];
}

/**
 * SPEC §2's young window: until a cluster is as old as the projection horizon (1 h), its ratios divide
 * usage by one full hour of entitlement, more than its budgets have earned so far. The budgets page and
 * `tranche budgets` say so under the tree, from the cluster's `createdAt` in GET /budgets.
 */
export const YOUNG_CLUSTER_MS = defaultPolicy.projectionHorizon * 1000;

export function isYoungCluster(cluster: { createdAt: string }, nowMs: number): boolean {
  return nowMs - Date.parse(cluster.createdAt) < YOUNG_CLUSTER_MS;
}

export const YOUNG_CLUSTER_NOTE =
  "This cluster started less than an hour ago. Entitlement shows what each budget has earned so far; until the cluster is an hour old, its ratio divides usage by one full hour of entitlement, so ratios mean something from the first minute.";

/** One allocation change, as the budgets page's history, REST GET /allocation-changes and `tranche allocations` show it. */
export interface AllocationHistoryRow {
  id: string;
  at: string;
  path: string;
  cluster: string;
  fromPpm: number;
  toPpm: number;
  actor: string | null;
  note: string | null;
}

/**
 * What removing a member did, for the CLI and the web app alike: it stops new submissions only, so the
 * jobs of theirs already waiting or running go on charged to the budget, and the sentence says so.
 */
export function removedMemberText(email: string, budget: string, jobsLeft: number): string {
  const head = `${email} may no longer submit to ${budget}.`;
  if (jobsLeft === 0) return head;
  const jobs = jobsLeft === 1 ? "1 job of theirs is" : `${jobsLeft.toLocaleString("en-US")} jobs of theirs are`;
  return `${head} ${jobs} still waiting or running there and stay charged to it; cancel them if they should not run.`;
}
