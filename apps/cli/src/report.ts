// `tranche report CLUSTER`: did each budget get the GPU time it was owed over a window (delivery,
// docs/scheduling-model.md §4), and what has it used of what it earned over the scheduler's 7 days? The
// charts page's figures, read from GET /api/v1/measures/{cluster}, so a manager can answer "is my team
// getting what it is owed" from a terminal, and keep the answer as a file (--csv; --json for all of it).
import type { Command } from "commander";
import { MEASURES_MAX_HOURS, type DeliveryReport } from "@tranche/contracts";
import { shareUsed } from "@tranche/contracts/format";
import { api, loadConfig } from "./client";
import { table, when, type Out } from "./format";
import { countOption } from "./options";

const hoursText = (h: number) => (h < 100 ? h.toFixed(1) : Math.round(h).toLocaleString("en-US"));
const pct = (x: number | null) => (x === null ? "-" : `${(x * 100).toFixed(1)}%`);

interface ReportRow {
  budget: string;
  owed: number | null;
  delivered: number | null;
  delivery: number | null;
  used: number | null;
  earned: number | null;
  ratio: number | null;
}

/** Every budget of the report (under `under`, when given), delivery and usage side by side. */
export function reportRows(r: DeliveryReport, under?: string): ReportRow[] {
  const inside = (b: string) => under === undefined || b === under || b.startsWith(`${under}/`);
  const rows = new Map<string, ReportRow>();
  const row = (budget: string) => {
    let x = rows.get(budget);
    if (!x) {
      x = { budget, owed: null, delivered: null, delivery: null, used: null, earned: null, ratio: null };
      rows.set(budget, x);
    }
    return x;
  };
  for (const d of r.delivery.filter((d) => inside(d.budget)))
    Object.assign(row(d.budget), { owed: d.owedGpuHours, delivered: d.deliveredGpuHours, delivery: d.delivery });
  for (const u of r.usage.filter((u) => inside(u.budget)))
    Object.assign(row(u.budget), { used: u.usageGpuHours, earned: u.entitlementGpuHours, ratio: u.ratio });
  return [...rows.values()].sort((a, b) => a.budget.localeCompare(b.budget));
}

/** The report in words: the window, the cluster's overall delivery, then one line per budget. */
export function reportText(r: DeliveryReport, under?: string, timeZone?: string): string {
  const rows = reportRows(r, under);
  const w = r.deliveryWindow;
  const head =
    `Delivery on ${r.cluster} from ${when(r.from, timeZone)} to ${when(r.to, timeZone)}` +
    `${r.since ? " (the cluster started in this window)" : ""}:`;
  const overall =
    w.budgetsOwed === 0
      ? "No budget was owed GPU time in this window (none had jobs asking for the share it earned)."
      : `Overall ${pct(w.delivery)}; ${w.budgetsAtLeast95} of ${w.budgetsOwed} budgets owed time got 95% or more; the lowest got ${pct(w.minDelivery)}.`;
  const lines = [head, overall, ""];
  if (rows.length === 0) lines.push(under === undefined ? "No budgets." : `No budget under '${under}'.`);
  else
    lines.push(
      table(
        ["BUDGET", "OWED (GPU-H)", "DELIVERED (GPU-H)", "DELIVERY", "USED / EARNED (GPU-H, 7 D)", "USED OF SHARE (7 D)"],
        rows.map((x) => [
          x.budget,
          x.owed === null ? "-" : hoursText(x.owed),
          x.delivered === null ? "-" : hoursText(x.delivered),
          pct(x.delivery),
          x.used === null ? "-" : `${hoursText(x.used)} / ${hoursText(x.earned ?? 0)}`,
          x.ratio === null ? "-" : shareUsed(x.ratio),
        ]),
      ),
    );
  lines.push(
    "",
    "Owed each hour: the smaller of what the budget earned and what its jobs asked for; delivered: what they ran of it. A budget below 100% waited while it was owed time.",
  );
  return lines.join("\n");
}

/**
 * One CSV cell. Text that a spreadsheet would run as a formula (starting with =, +, -, @, a tab or a
 * carriage return) gets a ' before it: a budget's name cannot start so today, but the file is opened by
 * a manager, and the rule for names could change without anyone looking here. Numbers stay numbers.
 */
const csvCell = (v: string | number | null) => {
  const s = v === null ? "" : typeof v === "string" && /^[=+\-@\t\r]/.test(v) ? `'${v}` : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** The same rows as CSV, numbers unrounded, for a spreadsheet. */
export function reportCsv(r: DeliveryReport, under?: string): string {
  const head = "budget,owed_gpu_hours,delivered_gpu_hours,delivery,used_gpu_hours_7d,earned_gpu_hours_7d,used_of_share_7d";
  const rows = reportRows(r, under).map((x) =>
    [x.budget, x.owed, x.delivered, x.delivery, x.used, x.earned, x.ratio].map(csvCell).join(","),
  );
  return [head, ...rows].join("\n");
}

export function registerReport(program: Command, out: Out): void {
  program
    .command("report")
    .description(
      "whether each budget got the GPU time it was owed over a window, and its usage over 7 days (the charts page's figures)",
    )
    .argument("<cluster>", "cluster name")
    .option("--hours <n>", "the window in clock hours, this one so far and the N-1 before it (1-168)", "24")
    .option("--budget <path>", "only this tree node's budgets, e.g. lab/vision")
    .option("--csv", "print CSV (one row per budget) instead of text")
    .action(async (cluster: string, o: { hours: string; budget?: string; csv?: boolean }) => {
      const q = new URLSearchParams({ hours: String(countOption("--hours", o.hours, MEASURES_MAX_HOURS)) });
      const r = await api<DeliveryReport>(loadConfig(), "GET", `/measures/${encodeURIComponent(cluster)}?${q}`);
      if (o.csv) console.log(reportCsv(r, o.budget));
      else out(r, () => reportText(r, o.budget));
    });
}
