import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { createMemorySink } from "../src/events-log.js";
import { runScenario } from "../src/run.js";
import { loadScenarioFile } from "../src/scenario.js";

const SMALL = join(import.meta.dirname, "../scenarios/small.yaml");

describe("the simulator's forecast measure", () => {
  it("reports the forecast against the actual starts without changing a decision", () => {
    const scenario = loadScenarioFile(SMALL);
    const plainSink = createMemorySink();
    const measuredSink = createMemorySink();
    const plain = runScenario(scenario, { policy: "fairshare", sink: plainSink });
    const measured = runScenario(scenario, { policy: "fairshare", sink: measuredSink, forecast: true });
    expect(plain.forecast).toBeUndefined();
    const f = measured.forecast!;
    // Every start that followed a submit or requeue had a forecast, known or not. A job moved by R12
    // (CONSOLIDATION) restarts without ever waiting in the queue: that start has none.
    const moving = new Set<string>();
    let starts = 0;
    for (const e of measuredSink.events) {
      if (e.type === "preempt") {
        if (e.reason === "CONSOLIDATION") moving.add(e.job!);
        else moving.delete(e.job!);
      }
      if (e.type === "start" && !moving.delete(e.job!)) starts++;
    }
    expect(f.jobs + f.unknown).toBe(starts);
    expect(f.jobs).toBeGreaterThan(0);
    expect(f.medianAbsErrorS).not.toBeNull();
    expect(f.p90AbsErrorS!).toBeGreaterThanOrEqual(f.medianAbsErrorS!);
    expect(f.withinFactor2).toBeGreaterThan(0);
    expect(f.withinFactor2).toBeLessThanOrEqual(1);
    expect(measuredSink.events).toEqual(plainSink.events);
  }, 60_000); // two replays of small.yaml, one with a forecast per cycle: seconds on a busy machine

  it("refuses the forecast with a baseline policy, whose rules it is not", () => {
    expect(() => runScenario(loadScenarioFile(SMALL), { policy: "fifo", forecast: true, sink: createMemorySink() })).toThrow(
      /fairshare/,
    );
  });
});
