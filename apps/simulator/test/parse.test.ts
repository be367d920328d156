import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseDuration } from "../src/duration.js";
import { loadScenarioFile, validateScenario } from "../src/scenario.js";
import { policyConfig } from "../src/run.js";
import { parseTraceCsv, splitCsvLine, type TraceContext } from "../src/trace.js";
import { InputError } from "../src/types.js";

const ctx: TraceContext = {
  clusters: new Map([["h100", { name: "h100", gpuType: "H100", nodes: 4, gpusPerNode: 8 }]]),
  budgets: new Set(["nlp/pretrain", "nlp/eval", "robotics"]),
  treePaths: new Set(["nlp", "nlp/pretrain", "nlp/eval", "robotics"]),
  maxMinRuntime: 8 * 3600,
};
const HEADER = "id,submit,budget,user,cluster,gpus,duration,min_runtime,max_runtime,resumable,priority";

function errorsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    if (e instanceof InputError) return [...e.errors];
    throw e;
  }
  throw new Error("expected an InputError");
}

describe("durations", () => {
  it("accepts bare seconds and the s, m, h and d suffixes", () => {
    expect(parseDuration(90)).toBe(90);
    expect(parseDuration("90")).toBe(90);
    expect(parseDuration("90s")).toBe(90);
    expect(parseDuration("15m")).toBe(900);
    expect(parseDuration("2h")).toBe(7200);
    expect(parseDuration("7d")).toBe(604800);
    expect(parseDuration("1.5h")).toBe(5400);
  });

  it("rejects negative numbers, unknown units and words", () => {
    expect(parseDuration(-1)).toBeNull();
    expect(parseDuration("3w")).toBeNull();
    expect(parseDuration("soon")).toBeNull();
    expect(parseDuration("")).toBeNull();
  });
});

describe("trace CSV", () => {
  it("fills blank fields with the documented defaults", () => {
    const csv = `${HEADER}\nj1,10,nlp/pretrain,,,8,3h,,,,\nj2,20,robotics,rob,h100,1,10m,,15m,false,5\n`;
    const { jobs, errors } = parseTraceCsv(csv, "t.csv", ctx);
    expect(errors).toEqual([]);
    expect(jobs[0]).toEqual({
      id: "j1",
      submit: 10,
      budget: "nlp/pretrain",
      user: "nlp/pretrain",
      cluster: "h100",
      gpus: 8,
      duration: 10800,
      minRuntime: 7200,
      maxRuntime: null,
      resumable: true,
      priority: 0,
    });
    expect(jobs[1]).toMatchObject({ minRuntime: 600, maxRuntime: 900, resumable: false, priority: 5, user: "rob" });
  });

  it("reads CRLF files and quoted fields", () => {
    const csv = `${HEADER}\r\n"j,1",0,robotics,"o""neil",h100,1,60,,,,\r\n`;
    const { jobs, errors } = parseTraceCsv(csv, "t.csv", ctx);
    expect(errors).toEqual([]);
    expect(jobs[0]).toMatchObject({ id: "j,1", user: 'o"neil' });
    expect(splitCsvLine('"a,b",c')).toEqual(["a,b", "c"]);
    expect(splitCsvLine('"open,c')).toBeUndefined();
  });

  it("lists every bad row with its line number and returns no jobs", () => {
    const csv = [
      HEADER,
      "ok,0,robotics,,h100,1,60,,,,",
      "short,0,robotics",
      "neg,0,robotics,,h100,0,60,,,,",
      "big,0,robotics,,h100,64,60,,,,",
      "odd,0,robotics,,h100,12,60,,,,",
      "who,0,nlp/unknown,,h100,1,60,,,,",
      "mid,0,nlp,,h100,1,60,,,,",
      "where,0,robotics,,a100,1,60,,,,",
      "ok,5,robotics,,h100,1,60,,,,",
      "long,0,robotics,,h100,1,60,9h,,,",
      "bad,soon,robotics,,h100,1,forever,,,maybe,high",
    ].join("\n");
    const { jobs, errors } = parseTraceCsv(csv, "t.csv", ctx);
    expect(jobs).toEqual([]);
    expect(errors).toEqual([
      "t.csv:3: malformed row: 3 fields, expected 11",
      't.csv:4: gpus "0" must be a positive integer',
      't.csv:5: gpus 64 is more than cluster "h100" has (32)',
      "t.csv:6: gpus 12 spans nodes but is not a multiple of the node size 8 (SPEC R1)",
      't.csv:7: unknown budget "nlp/unknown"',
      't.csv:8: budget "nlp" is not a leaf of the budget tree (jobs are charged to leaves)',
      't.csv:9: unknown cluster "a100"',
      't.csv:10: duplicate job id "ok" (first on line 2)',
      "t.csv:11: min_runtime 32400s is above the cap 28800s (policy.maxMinRuntime)",
      't.csv:12: submit "soon" is not a duration: use whole seconds (5400) or units s, m, h, d (5400s, 90m, 1h30m)',
      't.csv:12: duration "forever" must be a positive duration',
      't.csv:12: resumable "maybe" must be true/false, 1/0 or yes/no',
      't.csv:12: priority "high" must be an integer',
    ]);
  });

  it("rejects a header with unknown or missing columns", () => {
    const { errors } = parseTraceCsv("id,submit,team,gpus\n", "t.csv", ctx);
    expect(errors).toEqual([
      't.csv:1: unknown column "team"',
      't.csv:1: missing column "budget"',
      't.csv:1: missing column "duration"',
    ]);
  });
});

describe("scenario files", () => {
  it("loads a YAML scenario with a CSV trace relative to the file", () => {
    const s = loadScenarioFile(join(import.meta.dirname, "fixtures/tiny.yaml"));
    expect(s.clusters).toEqual([{ name: "h100", gpuType: "H100", nodes: 2, gpusPerNode: 8 }]);
    expect(s.jobs.map((j) => j.id)).toEqual(["a", "b", "c"]);
    expect(s.policy.lookbackWindow).toBe(7 * 86400);
    expect(s.simulation).toEqual({ restartOverhead: 300, checkpointInterval: 1800, until: null, measureFrom: 0 });
  });

  it("loads JSON with inline jobs and duration knobs", () => {
    const dir = mkdtempSync(join(tmpdir(), "sim-"));
    const file = join(dir, "s.json");
    writeFileSync(
      file,
      JSON.stringify({
        clusters: [{ name: "b200", gpuType: "B200", nodes: 1, gpusPerNode: 8 }],
        budgets: { name: "lab", children: [{ name: "a", allocation: { b200: 1 } }] },
        policy: { lookbackWindow: "2d", projectionHorizon: "30m", preemptionMargin: 0.2, debugVictimMaxCost: "2h" },
        simulation: { restartOverhead: "5m", checkpointInterval: "1h", until: "1d", measureFrom: "2h" },
        nodeEvents: [{ t: "1h", node: "b200-0", health: "unhealthy" }],
        jobs: [{ id: "x", submit: "10m", budget: "a", gpus: 8, duration: "1h" }],
      }),
    );
    const s = loadScenarioFile(file);
    expect(s.policy).toMatchObject({
      lookbackWindow: 172800,
      projectionHorizon: 1800,
      preemptionMargin: 0.2,
      debugVictimMaxCost: 7200,
    });
    expect(policyConfig(s).debugVictimMaxCost).toBe(7200);
    expect(s.simulation).toEqual({ restartOverhead: 300, checkpointInterval: 3600, until: 86400, measureFrom: 7200 });
    expect(s.nodeEvents).toEqual([{ t: 3600, node: "b200-0", health: "unhealthy" }]);
    expect(s.jobs[0]).toMatchObject({ id: "x", submit: 600, duration: 3600, cluster: "b200" });
  });

  it("reports every problem in the tree, knobs, node events and inline jobs at once", () => {
    const errors = errorsOf(() =>
      validateScenario(
        {
          clusters: [{ name: "h100", nodes: 1 }],
          budgets: {
            name: "lab",
            children: [
              { name: "a", allocation: { h100: 0.7 } },
              { name: "b", allocation: { h100: 0.4, tpu: 0.1 } },
            ],
          },
          policy: { lookbackWindow: "a week", color: "red" },
          nodeEvents: [{ t: 5, node: "h100-7", health: "sad" }],
          jobs: [{ id: "x", submit: 0, budget: "a", gpus: 1, duration: 1 }],
        },
        { file: "s.yaml", baseDir: "." },
      ),
    );
    expect(errors).toEqual([
      's.yaml: budget "b": allocation names unknown cluster "tpu"',
      's.yaml: budgets (root): children\'s allocations on "h100" sum to 1.1000 (> 1)',
      's.yaml: policy: unknown knob "color"',
      's.yaml: policy.lookbackWindow "a week" is not a duration: use whole seconds (5400) or units s, m, h, d (5400s, 90m, 1h30m)',
      's.yaml: nodeEvents[0]: unknown node "h100-7" (cluster "h100" has nodes 0..0)',
      "s.yaml: nodeEvents[0]: health must be one of healthy, unhealthy, down, maintenance",
    ]);
  });

  it("rejects a measured window that does not start on a whole hour before until", () => {
    const raw = (measureFrom: string) => ({
      clusters: [{ name: "c", nodes: 1 }],
      budgets: { name: "r", children: [{ name: "t", allocation: { c: 1 } }] },
      simulation: { until: "1d", measureFrom },
      jobs: [{ id: "x", submit: 0, budget: "t", gpus: 1, duration: 1 }],
    });
    expect(errorsOf(() => validateScenario(raw("90m"), { file: "s.yaml", baseDir: "." }))).toEqual([
      "s.yaml: simulation.measureFrom must be a whole number of hours (the measures are hourly)",
    ]);
    expect(errorsOf(() => validateScenario(raw("1d"), { file: "s.yaml", baseDir: "." }))).toEqual([
      "s.yaml: simulation.measureFrom must be before until",
    ]);
  });

  it("names the line of every bad row of a referenced CSV", () => {
    const dir = mkdtempSync(join(tmpdir(), "sim-"));
    writeFileSync(join(dir, "jobs.csv"), `${HEADER}\na,0,x,,,1,60,,,,\na,0,t,,,1,60,,,,\n`);
    writeFileSync(
      join(dir, "s.yaml"),
      "clusters: [{ name: c, nodes: 1 }]\nbudgets: { name: r, children: [{ name: t, allocation: { c: 1 } }] }\njobs: jobs.csv\n",
    );
    expect(errorsOf(() => loadScenarioFile(join(dir, "s.yaml")))).toEqual(['jobs.csv:2: unknown budget "x"']);
  });
});

describe("import: keys a source does not have", () => {
  const errorsOf = (raw: unknown): readonly string[] => {
    try {
      validateScenario(raw, { file: "x.yaml", baseDir: "." });
    } catch (e) {
      if (e instanceof InputError) return e.errors;
      throw e;
    }
    return [];
  };

  it("are refused with the key named, never ignored", () => {
    expect(errorsOf({ import: { source: "helios", fromDay: 3, days: 5 } })).toEqual([
      "x.yaml: import.fromDay: only a philly import has this key",
      "x.yaml: import.days: only a philly import has this key",
    ]);
    expect(errorsOf({ import: { source: "philly", limit: 10 } })).toEqual([
      "x.yaml: import.limit: only a helios import has this key",
    ]);
    expect(errorsOf({ import: { source: "helios", teams: { "1": "a/b" } } })).toEqual([
      "x.yaml: import.teams: needs a budgets tree beside import (with every team path as a leaf)",
    ]);
  });
});
