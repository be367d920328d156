import type { Command } from "commander";
import {
  YOUNG_CLUSTER_NOTE,
  formatPpm,
  isYoungCluster,
  type AllocationHistoryRow,
  type BudgetTreeNodeView,
  type BudgetTreeResult,
} from "@tranche/contracts";
import { gpuHoursNumber, shareUsed } from "@tranche/contracts/format";
import { api, CliError, loadConfig } from "./client";
import { ago, gpus, table, when, type Out } from "./format";
import { countOption } from "./options";

// The Budgets page's figures: one decimal under 100 GPU-hours (3.5 / 2.2), whole hours from 100 on.
const gpuHours = (sec: number | null) => (sec === null ? "-" : gpuHoursNumber(sec));

/** The tree in order, each node with its depth (the budgets page's rows). */
function flatten(n: BudgetTreeNodeView, depth = 0, rows: { node: BudgetTreeNodeView; depth: number }[] = []) {
  rows.push({ node: n, depth });
  for (const c of n.children) flatten(c, depth + 1, rows);
  return rows;
}

/**
 * One cluster's budget tree in words, like the budgets page (and Slurm's `sshare`): each node's share of
 * its parent and of the cluster, the GPUs it holds now, its usage and earned entitlement over the
 * window, and its 7-day ratio as the reason sentences say it. The figures are the scheduler's latest
 * cycle's; nothing is recomputed here. On a cluster younger than an hour a note says why the share used
 * can exceed what usage over earned reads (the budgets page's note, by the same rule).
 */
export function budgetsText(tree: BudgetTreeResult, cluster: string, now = Date.now(), width?: number): string {
  const c = tree.clusters.find((x) => x.name === cluster)!;
  const when = c.cycleAt ? `the scheduler's figures of ${ago(c.cycleAt, now)} ago` : "no scheduling cycle yet";
  if (!tree.root) return `No budget tree yet: an admin creates its root (tranche admin budget create lab).`;
  const managed = new Set(tree.managedPaths);
  const rows = flatten(tree.root).map(({ node, depth }) => {
    const s = node.perCluster[cluster];
    const used = s?.usageGpuSeconds ?? null;
    const earned = s?.accruedEntitlementGpuSeconds ?? s?.entitlementGpuSeconds ?? null;
    return [
      `${"  ".repeat(depth)}${node.name}${managed.has(node.path) ? " (you manage)" : ""}`,
      node.parentId ? formatPpm(s?.ppm ?? 0) : "100%",
      s ? `${(s.effective * 100).toFixed(1)}% (${gpus(Math.round(s.effective * c.gpus))})` : "-",
      s?.heldGpus === null || s?.heldGpus === undefined ? "-" : String(s.heldGpus),
      used === null ? "-" : `${gpuHours(used)} / ${gpuHours(earned)}`,
      s?.ratio === null || s?.ratio === undefined ? (s?.effective === 0 ? "no share" : "-") : shareUsed(s.ratio),
    ];
  });
  // Per-user limits hold on every cluster: a researcher whose job waits on one (USER_LIMIT) sees it here.
  const limits = flatten(tree.root)
    .filter(({ node }) => node.maxGpusPerUser !== null)
    .map(({ node }) => `  ${perUserLimitText(node.path, node.maxGpusPerUser)}`);
  return (
    `Budgets on ${cluster} (${c.gpus} GPUs; ${when}):\n` +
    table(
      ["BUDGET", "SHARE OF PARENT", "OF CLUSTER", "GPUS HELD", "USED / EARNED (GPU-H, 7 D)", "USED OF SHARE (7 D)"],
      rows,
      width,
    ) +
    (limits.length ? `\n\nPer-user limits (tranche limit):\n${limits.join("\n")}` : "") +
    (isYoungCluster(c, now) ? `\n\n${YOUNG_CLUSTER_NOTE}` : "")
  );
}

/** A budget's per-user limit, as `tranche limit` answers and `tranche budgets` lists it. */
export function perUserLimitText(budget: string, maxGpusPerUser: number | null): string {
  return maxGpusPerUser === null
    ? `${budget}: no per-user limit.`
    : `${budget}: each user's jobs may hold at most ${gpus(maxGpusPerUser)} at once.`;
}

/**
 * `tranche budgets [cluster]`'s text: the named cluster's tree, or with none named every cluster's, one
 * after another (a lab with one cluster sees just that one), the way the Budgets page opens on a cluster
 * without being asked which.
 */
export function budgetsCommandText(tree: BudgetTreeResult, given: string | undefined, now = Date.now(), width?: number): string {
  const names = tree.clusters.map((c) => c.name);
  if (names.length === 0) throw new CliError("There is no cluster yet: an admin creates one (tranche admin cluster create).");
  if (given !== undefined && !names.includes(given)) {
    throw new CliError(`There is no cluster '${given}' (clusters: ${names.join(", ")})`);
  }
  const shown = given === undefined ? names : [given];
  if (!tree.root) return budgetsText(tree, shown[0]!, now, width); // one "no tree yet", not one per cluster
  return shown.map((n) => budgetsText(tree, n, now, width)).join("\n\n");
}

/** `tranche allocations`' lines: "6 Dec, 15:41:34  lab/language on b200: 40% -> 45%, by Maya Manager (note)". */
export function allocationsText(changes: readonly AllocationHistoryRow[], timeZone?: string): string {
  if (changes.length === 0) return "No allocation changes.";
  return changes
    .map(
      (c) =>
        `${when(c.at, timeZone)}  ${c.path} on ${c.cluster}: ${formatPpm(c.fromPpm)} -> ${formatPpm(c.toPpm)}` +
        `${c.actor ? `, by ${c.actor}` : ""}${c.note ? ` (${c.note})` : ""}`,
    )
    .join("\n");
}

/** `tranche budgets [cluster]` and `tranche allocations`. */
export function registerBudgets(program: Command, out: Out): void {
  program
    .command("budgets")
    .description(
      "the budget tree on a cluster (or on each): shares, GPUs held, usage over the last 7 days and the share each has used",
    )
    .argument("[cluster]", "cluster name (left out: every cluster's tree, one after another)")
    .action(async (given: string | undefined) => {
      const tree = await api<BudgetTreeResult>(loadConfig(), "GET", "/budgets");
      const text = budgetsCommandText(tree, given);
      out(tree, () => text);
    });

  program
    .command("allocations")
    .description("who changed which allocation when, newest first (a cluster's, a subtree's, or all)")
    .argument("[cluster]", "cluster name")
    .option("--budget <path>", "only this tree node and its subtree, e.g. lab/vision")
    .option("--limit <n>", "at most this many (1-500)", "50")
    .action(async (cluster: string | undefined, o: { budget?: string; limit: string }) => {
      const q = new URLSearchParams({ limit: String(countOption("--limit", o.limit)) });
      if (cluster !== undefined) q.set("cluster", cluster);
      if (o.budget !== undefined) q.set("path", o.budget);
      const r = await api<{ changes: AllocationHistoryRow[] }>(loadConfig(), "GET", `/allocation-changes?${q}`);
      out(r, () => allocationsText(r.changes));
    });
}
