import { describe, expect, it } from "vitest";
import type { DeliveryReport } from "@tranche/contracts";
import { reportCsv, reportText } from "../src/report";

const report: DeliveryReport = {
  cluster: "a100",
  from: "2026-12-06T10:00:00.000Z",
  to: "2026-12-07T10:00:00.000Z",
  hours: 24,
  since: null,
  delivery: [
    { budget: "lab/bio/seq", delivery: 0.8, owedGpuHours: 10, deliveredGpuHours: 8 },
    { budget: "lab/nlp/mt", delivery: 1, owedGpuHours: 120.4, deliveredGpuHours: 120.4 },
  ],
  deliveryWindow: { delivery: 0.9848, budgetsOwed: 2, budgetsAtLeast95: 1, minDelivery: 0.8 },
  usage: [
    { budget: "lab/bio/seq", usageGpuHours: 30, entitlementGpuHours: 40, ratio: 0.75 },
    { budget: "lab/bio/var", usageGpuHours: 0, entitlementGpuHours: 40, ratio: 0 },
    { budget: "lab/nlp/mt", usageGpuHours: 200, entitlementGpuHours: 100, ratio: 2 },
  ],
};

describe("tranche report", () => {
  it("puts each budget's delivery beside its 7-day usage, under the cluster's overall figure", () => {
    const t = reportText(report, "lab/bio", "UTC");
    expect(t.split("\n").slice(0, 2)).toEqual([
      "Delivery on a100 from 6 Dec, 10:00:00 to 7 Dec, 10:00:00:",
      "Overall 98.5%; 1 of 2 budgets owed time got 95% or more; the lowest got 80.0%.",
    ]);
    expect(t).toMatch(/lab\/bio\/seq +10\.0 +8\.0 +80\.0% +30\.0 \/ 40\.0 /);
    expect(t).toMatch(/lab\/bio\/var +- +- +- +0\.0 \/ 40\.0 /);
    expect(t).not.toContain("lab/nlp");
  });

  it("says so when no budget was owed time, or none is under the path", () => {
    const idle = {
      ...report,
      delivery: [],
      deliveryWindow: { delivery: null, budgetsOwed: 0, budgetsAtLeast95: 0, minDelivery: null },
    };
    expect(reportText(idle, undefined, "UTC")).toContain("No budget was owed GPU time in this window");
    expect(reportText(report, "lab/vision", "UTC")).toContain("No budget under 'lab/vision'.");
  });

  it("writes CSV with unrounded numbers and empty cells for what is unknown", () => {
    expect(reportCsv(report).split("\n")).toEqual([
      "budget,owed_gpu_hours,delivered_gpu_hours,delivery,used_gpu_hours_7d,earned_gpu_hours_7d,used_of_share_7d",
      "lab/bio/seq,10,8,0.8,30,40,0.75",
      "lab/bio/var,,,,0,40,0",
      "lab/nlp/mt,120.4,120.4,1,200,100,2",
    ]);
  });

  it("writes text a spreadsheet would run as a formula with a ' before it, quoted when it must be", () => {
    const names = ['=HYPERLINK("http://x","y")', "+1", "-2+3", "@SUM(A1)", "\tx", "\rx", "lab/ok"];
    const hostile = { ...report, delivery: [], usage: names.map((budget) => ({ ...report.usage[1]!, budget })) };
    expect(reportCsv(hostile).split("\n").slice(1)).toEqual([
      "'\tx,,,,0,40,0",
      `"'\rx",,,,0,40,0`,
      "'-2+3,,,,0,40,0",
      "'@SUM(A1),,,,0,40,0",
      "'+1,,,,0,40,0",
      `"'=HYPERLINK(""http://x"",""y"")",,,,0,40,0`,
      "lab/ok,,,,0,40,0",
    ]);
  });
});
