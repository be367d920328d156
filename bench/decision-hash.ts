/**
 * Decision hashes: the check that a refactoring of the core changes no decision (issue 11).
 *
 *   node --import tsx bench/decision-hash.ts [--skip-full] [--results] [--quick] [--only core|sim] [--sixty]
 *
 * Prints sha256 of
 *  - JSON.stringify(CycleResult) over the bench snapshots (bench/scheduler-core.bench.ts): seeds 42 and
 *    7 x 1,000 / 10,000 / 50,000 pending x 3 chained cycles (each plan applied, 30 s apart), once with
 *    the stateless runCycle and once with one kept scheduler per chain (both must print the same);
 *  - the simulator's event stream (and, for small.yaml or with --results, every CycleResult it got) on
 *    small.yaml (fairshare, priority, fifo), philly-merged.yaml (the three policies) and the full
 *    Philly replay (philly-all.yaml, fairshare; --skip-full leaves it out), and the first 8 days of
 *    philly-overload.yaml (fairshare) and its first 14 days with priority. --quick: philly-merged with
 *    fairshare only, no priority on philly-overload (the baselines take minutes there). --sixty adds all
 *    60 days of philly-overload.yaml (fairshare; about half a minute on a quiet machine), the replay whose
 *    speed bench/README.md reports, so a speed change is checked on the very events it timed.
 * Same output before and after a change means the same decisions; any difference names the input.
 */
import { createHash, type Hash } from "node:crypto";
import { resolve } from "node:path";
import { defaultPolicy, runCycle, type ClusterSnapshot, type CycleResult, type PolicyConfig } from "@tranche/scheduler-core";
import { loadScenarioFile, policyConfig, POLICIES, simulate, type EventSink, type PolicyName } from "@tranche/simulator";
import { applyPlan, generateSnapshot } from "./scheduler-core.bench";

const ROOT = resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : null;

type Cycle = (s: ClusterSnapshot, p: PolicyConfig, now: number) => CycleResult;

/** A per-chain cycle function: the stateless form, or a kept scheduler when the core has one. */
async function cycleMakers(): Promise<{ name: string; make: () => Cycle }[]> {
  const core = (await import("@tranche/scheduler-core")) as Record<string, unknown>;
  const makers: { name: string; make: () => Cycle }[] = [{ name: "runCycle", make: () => runCycle }];
  const create = core.createScheduler as
    ((p: PolicyConfig) => { runCycle(s: ClusterSnapshot, now: number): CycleResult }) | undefined;
  if (create) {
    makers.push({
      name: "createScheduler",
      make: () => {
        let s: ReturnType<typeof create> | null = null;
        return (snap, p, now) => (s ??= create(p)).runCycle(snap, now);
      },
    });
  }
  return makers;
}

const hex = (h: Hash): string => h.digest("hex");

async function coreHashes(): Promise<void> {
  for (const { name, make } of await cycleMakers()) {
    const all = createHash("sha256");
    for (const seed of [42, 7]) {
      for (const pending of [1_000, 10_000, 50_000]) {
        const now = 1_800_000_000;
        let snap = generateSnapshot({ nodes: 1024, gpusPerNode: 8, running: 2000, pending, fanout: [5, 4, 10] }, seed, now);
        const cycle = make();
        const h = createHash("sha256");
        let t = now;
        for (let i = 0; i < 3; i++) {
          const result = cycle(snap, defaultPolicy, t);
          const json = JSON.stringify(result);
          h.update(json);
          all.update(json);
          snap = applyPlan(snap, result, t);
          t += 30;
          for (const n of snap.nodes) n.lastHeartbeatAt = t - 5;
        }
        console.log(`core ${name} seed ${seed} pending ${pending}: ${hex(h)}`);
      }
    }
    console.log(`core ${name} all: ${hex(all)}`);
  }
}

function hashingSink(h: Hash): EventSink {
  let count = 0;
  return {
    emit(e) {
      count++;
      h.update(JSON.stringify(e));
      h.update("\n");
    },
    get count() {
      return count;
    },
    close: () => undefined,
  };
}

/** `days`: stop that many days after the warm-up (a window of a long scenario). */
function simHash(file: string, policy: PolicyName, withResults: boolean, days?: number): void {
  const t0 = performance.now();
  let scenario = loadScenarioFile(resolve(ROOT, file));
  if (days !== undefined) {
    const until = scenario.simulation.measureFrom + days * 86400;
    scenario = { ...scenario, simulation: { ...scenario.simulation, until } };
  }
  const events = createHash("sha256");
  const results = createHash("sha256");
  const sink = hashingSink(events);
  // One cycle function per cluster (POLICIES entries make them; before issue 11 they were one).
  const entry = POLICIES[policy] as unknown as Cycle | (() => Cycle);
  const newBase = (): Cycle => (entry.length === 0 ? (entry as () => Cycle)() : (entry as Cycle));
  const cycle = (): Cycle => {
    const base = newBase();
    return withResults
      ? (s, p, now) => {
          const r = base(s, p, now);
          results.update(JSON.stringify(r));
          return r;
        }
      : base;
  };
  const out = simulate(scenario, { cycle, policy: policyConfig(scenario), sink });
  const s = ((performance.now() - t0) / 1000).toFixed(1);
  console.log(
    `sim ${file}${days === undefined ? "" : ` (${days} days)`} ${policy}: events ${sink.count} ${hex(events)}${withResults ? ` results ${hex(results)}` : ""} (${out.cycles} cycles, ${s} s)`,
  );
}

if (only !== "sim") await coreHashes();
if (only !== "core") {
  for (const p of ["fairshare", "priority", "fifo"] as const) simHash("apps/simulator/scenarios/small.yaml", p, true);
  const merged = args.includes("--quick") ? (["fairshare"] as const) : (["fairshare", "priority", "fifo"] as const);
  for (const p of merged) simHash("apps/simulator/scenarios/philly-merged.yaml", p, args.includes("--results"));
  // A backlog of thousands (the blocked tail, the retry pass), which the other scenarios never build.
  simHash("apps/simulator/scenarios/philly-overload.yaml", "fairshare", false, 8);
  // The priority baseline's tail of thousands (its reservation, RESERVED_FOR, its preemption searches).
  if (!args.includes("--quick"))
    simHash("apps/simulator/scenarios/philly-overload.yaml", "priority", args.includes("--results"), 14);
  if (!args.includes("--skip-full")) simHash("apps/simulator/scenarios/philly-all.yaml", "fairshare", false);
  if (args.includes("--sixty")) simHash("apps/simulator/scenarios/philly-overload.yaml", "fairshare", false);
}
