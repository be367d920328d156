import { describe, expect, it } from "vitest";
import { explainContract } from "@tranche/contracts";
import { classifyJob, defaultPolicy, runCycle } from "@tranche/scheduler-core";
import { makeCluster, makeJob } from "@tranche/testkit";
import { NO_FORECAST_FACTS } from "../src/jobs/forecast-facts";
import { toJobView } from "../src/jobs/job-view";

/** A job row as the database returns it, for the REST view. */
const row = (c: { gpus: number; minRuntimeSec: number; maxRuntimeSec: number | null }) =>
  ({
    id: 1,
    name: "j",
    cluster: { name: "c1" },
    budget: { path: "lab/a" },
    user: { id: "u", name: "U", email: "u@x" },
    ...c,
    resumable: false,
    requeuePolicy: "NEVER",
    priority: 0,
    gracePeriodSec: null,
    command: "x",
    env: {},
    state: "PENDING",
    submittedAt: new Date(0),
    queuedAt: new Date(0),
    startedAt: null,
    protectedUntil: null,
    graceUntil: null,
    finishedAt: null,
    exitCode: null,
    requeueCount: 0,
    heldBy: null,
    reasonCode: null,
    reasonSentence: null,
    queuePosition: null,
    reasonDetails: null,
  }) as unknown as Parameters<typeof toJobView>[0];

describe("one classification: the form, the REST view and the core agree", () => {
  const cases = [
    { name: "debug-shaped with minRuntime 0", gpus: 2, minRuntime: 0, maxRuntime: 600, lane: "UNALLOCATED" },
    { name: "debug lane", gpus: 2, minRuntime: 300, maxRuntime: 600, lane: "DEBUG" },
    { name: "allocated", gpus: 8, minRuntime: 3600, maxRuntime: null, lane: "ALLOCATED" },
  ] as const;
  for (const c of cases) {
    it(`${c.name}: ${c.lane} everywhere`, () => {
      const form = explainContract({ gpus: c.gpus, minRuntime: c.minRuntime, maxRuntime: c.maxRuntime, resumable: false });
      const rest = toJobView(row({ gpus: c.gpus, minRuntimeSec: c.minRuntime, maxRuntimeSec: c.maxRuntime }), NO_FORECAST_FACTS);
      const job = makeJob("j").budget("a").gpus(c.gpus).minRuntime(c.minRuntime).maxRuntime(c.maxRuntime).pending();
      const result = runCycle(makeCluster().nodes(1).budget("a", 1).job(job).snapshot(), defaultPolicy, 0);
      const start = result.plan.find((o) => o.op === "START");
      expect(start?.op === "START" && start.lane).toBe(c.lane);
      expect(classifyJob({ ...c, gracePeriod: null }, true, defaultPolicy).lane).toBe(c.lane);
      expect(form.lane).toBe(c.lane);
      expect(rest.lane).toBe(c.lane);
      // The form never tells an unallocated job it is charged.
      if (c.lane === "UNALLOCATED") expect(form.sentences.join(" ")).not.toContain("Charged to its budget");
    });
  }
});
