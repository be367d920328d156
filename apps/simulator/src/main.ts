/**
 * CLI: `npm run sim -- <scenario.yaml|.json> [--policy fairshare|priority|fifo] [--out report.json]
 * [--events events.jsonl]`, or without npm:
 * `node --min-semi-space-size=16 --max-semi-space-size=32 --import tsx apps/simulator/src/main.ts <scenario> [options]`
 * (from the repo root; the worker's heap flags, scripts/platform/v8-flags.ts, which `npm run sim` passes).
 *
 * Exit codes: 0 done; 2 bad input (every error listed on stderr, nothing written); 1 anything else.
 */
import { writeFileSync } from "node:fs";
import { Command, InvalidArgumentError } from "commander";
import { POLICY_NAMES, runScenarioFile, type PolicyName } from "./run.js";
import { InputError } from "./types.js";

function parsePolicy(value: string): PolicyName {
  if (!(POLICY_NAMES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`must be one of ${POLICY_NAMES.join(", ")}`);
  }
  return value as PolicyName;
}

export function main(argv: readonly string[]): number {
  const program = new Command()
    .name("sim")
    .description("Replay a scenario through a scheduling policy in virtual time and report SPEC §4 measures.")
    .argument("<scenario>", "scenario file (.yaml, .yml or .json)")
    .option("--policy <name>", `policy: ${POLICY_NAMES.join(" | ")}`, parsePolicy, "fairshare" as PolicyName)
    .option("--out <file>", "write the report JSON here (default: stdout)")
    .option("--events <file>", "write the events JSONL here")
    .option("--forecast", "measure the core's start forecast at submit and requeue against the actual start (slow)")
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  try {
    program.parse([...argv], { from: "user" });
  } catch (e) {
    const code = (e as { exitCode?: number }).exitCode;
    // --help / --version exit 0; usage errors are bad input.
    return code === 0 ? 0 : 2;
  }
  const [scenario] = program.args as [string];
  const opts = program.opts<{ policy: PolicyName; out?: string; events?: string; forecast?: boolean }>();
  try {
    const report = runScenarioFile(scenario, { policy: opts.policy, eventsPath: opts.events, forecast: !!opts.forecast });
    const json = JSON.stringify(report, null, 2) + "\n";
    if (opts.out) writeFileSync(opts.out, json);
    else process.stdout.write(json);
    return 0;
  } catch (e) {
    if (e instanceof InputError) {
      process.stderr.write(`sim: bad input, nothing written (${e.errors.length} error(s)):\n`);
      for (const err of e.errors) process.stderr.write(`  ${err}\n`);
      return 2;
    }
    process.stderr.write(`sim: ${(e as Error).stack ?? String(e)}\n`);
    return 1;
  }
}

process.exitCode = main(process.argv.slice(2));
