/**
 * Writes an imported trace as a scenario + CSV pair to look at or edit:
 *   node --import tsx apps/simulator/src/import.ts philly|helios [--from-day N] [--days N]
 *     [--load X] [--nodes N] [--traces-dir DIR] --out-dir DIR
 * Scenarios can also import at load time (`import:` key), which is what the committed ones do.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Command } from "commander";
import { stringify } from "yaml";
import { demandRatio, type ImportResult } from "./importers/common.js";
import { importHelios } from "./importers/helios.js";
import { importPhilly } from "./importers/philly.js";
import { defaultTracesDir } from "./importers/traces-dir.js";
import { formatTraceCsv } from "./trace.js";

const num = (v: string): number => {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`not a number >= 0: ${v}`);
  return n;
};

const program = new Command()
  .name("sim-import")
  .argument("<source>", "philly | helios")
  .requiredOption("--out-dir <dir>", "where to write scenario.yaml and trace.csv")
  .option("--traces-dir <dir>", "the public traces", defaultTracesDir())
  .option("--from-day <n>", "Philly: first day kept", num)
  .option("--days <n>", "Philly: days kept", num)
  .option("--load <x>", "size the cluster for this submitted load", num)
  .option("--nodes <n>", "fixed node count", num)
  .option("--limit <n>", "Helios: first N GPU jobs", num)
  .parse();

const [source] = program.args as [string];
const o = program.opts<{
  outDir: string;
  tracesDir: string;
  fromDay?: number;
  days?: number;
  load?: number;
  nodes?: number;
  limit?: number;
}>();
let r: ImportResult;
if (source === "philly")
  r = importPhilly({ tracesDir: o.tracesDir, fromDay: o.fromDay, days: o.days, load: o.load, nodes: o.nodes });
else if (source === "helios") r = importHelios({ tracesDir: o.tracesDir, load: o.load, nodes: o.nodes, limit: o.limit });
else {
  process.stderr.write(`unknown source "${source}" (philly | helios)\n`);
  process.exit(2);
}
mkdirSync(o.outDir, { recursive: true });
writeFileSync(join(o.outDir, "trace.csv"), formatTraceCsv(r.jobs));
writeFileSync(join(o.outDir, "scenario.yaml"), stringify({ clusters: r.clusters, budgets: r.budgets, jobs: "trace.csv" }));
process.stdout.write(
  `${r.jobs.length} jobs, ${r.clusters[0]!.nodes} nodes, submitted load ${demandRatio(r.jobs, r.clusters[0]!, r.span).toFixed(2)}x -> ${o.outDir}\n`,
);
