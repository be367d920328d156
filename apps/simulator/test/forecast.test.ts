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
    // Every start that followed a submit or requeue had a forecast, known or not.
    const starts = measuredSink.events.filter((e) => e.type === "start").length;
    expect(f.jobs + f.unknown).toBe(starts);
    expect(f.jobs).toBeGreaterThan(0);
    expect(f.medianAbsErrorS).not.toBeNull();
    expect(f.p90AbsErrorS!).toBeGreaterThanOrEqual(f.medianAbsErrorS!);
    expect(f.withinFactor2).toBeGreaterThan(0);
    expect(f.withinFactor2).toBeLessThanOrEqual(1);
    expect(measuredSink.events).toEqual(plainSink.events);
  });

  it("refuses the forecast with a baseline policy, whose rules it is not", () => {
    expect(() => runScenario(loadScenarioFile(SMALL), { policy: "fifo", forecast: true, sink: createMemorySink() })).toThrow(
      /fairshare/,
    );
  });
});
