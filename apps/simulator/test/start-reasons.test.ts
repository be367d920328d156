import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createScheduler, FAIRSHARE, type ClusterSnapshot, type StartOp } from "@tranche/scheduler-core";
import { simulate } from "../src/engine.js";
import { createMemorySink } from "../src/events-log.js";
import { policyConfig } from "../src/run.js";
import { loadScenarioFile } from "../src/scenario.js";

const SMALL = join(import.meta.dirname, "../scenarios/small.yaml");

describe("start reasons over a replay", () => {
  it("a job that starts on its own reservation's nodes starts by it, never as a backfill before itself", () => {
    const scenario = loadScenarioFile(SMALL);
    const policy = policyConfig(scenario);
    const starts: StartOp[] = [];
    simulate(scenario, {
      policy,
      sink: createMemorySink(),
      cycle: () => {
        const s = createScheduler(policy, FAIRSHARE);
        return (snapshot: ClusterSnapshot, _p, now) => {
          const r = s.runCycle(snapshot, now);
          for (const op of r.plan) if (op.op === "START") starts.push(op);
          return r;
        };
      },
    });
    const own = starts.filter((s) => s.reason.code === "RESERVATION");
    // small.yaml has such starts (its results hash moved only by them when the code was BACKFILL).
    expect(own.length).toBeGreaterThan(0);
    expect(own.every((s) => s.reason.sentence.startsWith("Started on the nodes reserved for it."))).toBe(true);
    const selfBackfill = starts.filter(
      (s) => s.reason.code === "BACKFILL" && s.reason.sentence.startsWith(`Backfilled on nodes reserved for job ${s.jobId},`),
    );
    expect(selfBackfill).toEqual([]);
  });
});
