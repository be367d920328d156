// `npm run bench` lists the benchmarks; `npm run bench -- <name> [args]` runs bench/<name>.bench.ts with
// its arguments. Benchmarks print figures (see bench/README.md); nothing here asserts speed.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const dir = import.meta.dirname;
// Node flags a bench needs: scheduler-core times cycles after a forced GC.
const NODE_FLAGS: Record<string, string[]> = { "scheduler-core": ["--expose-gc"] };

export function benchNames(): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".bench.ts"))
    .map((f) => f.slice(0, -".bench.ts".length))
    .sort();
}

/** The first sentence of a bench's header comment: what it measures. */
export function summaryOf(name: string): string {
  const head = readFileSync(join(dir, `${name}.bench.ts`), "utf8")
    .split("\n")
    .slice(0, 6);
  const text = head
    .map((l) => l.replace(/^\s*(\/\/|\/\*\*|\*)\s?/, "").trim())
    .filter((l) => l && l !== "/")
    .join(" ");
  const end = text.search(/[.:](\s|$)/);
  return (end > 0 ? text.slice(0, end) : text).slice(0, 110);
}

export function benchCommand(name: string, args: string[]): string[] {
  return [...(NODE_FLAGS[name] ?? []), "--import", "tsx", join(dir, `${name}.bench.ts`), ...args];
}

function main(argv: string[]): number {
  const [name, ...args] = argv;
  if (!name || name === "--help" || name === "-h") {
    console.log("Benchmarks (npm run bench -- <name> [args]; figures and options in bench/README.md):\n");
    for (const n of benchNames()) console.log(`  ${n.padEnd(16)} ${summaryOf(n)}`);
    return 0;
  }
  if (!existsSync(join(dir, `${name}.bench.ts`))) {
    console.error(`bench: no benchmark '${name}'; one of: ${benchNames().join(", ")}`);
    return 2;
  }
  const r = spawnSync(process.execPath, benchCommand(name, args), { stdio: "inherit" });
  return r.status ?? 1;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) process.exit(main(process.argv.slice(2)));
