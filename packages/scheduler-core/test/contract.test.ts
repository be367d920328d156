import { describe, expect, it } from "vitest";
import {
  defaultPolicy,
  gracePeriodFor,
  isAllocated,
  isDebugLane,
  classifyJob,
  requeueAfterPreemption,
  validateJobContract,
  type JobContract,
} from "../src/index";

const nodes = Array.from({ length: 4 }, () => ({ gpuCount: 8 }));
const job = (over: Partial<JobContract> = {}): JobContract => ({
  gpus: 8,
  minRuntime: 3600,
  maxRuntime: null,
  priority: 0,
  resumable: true,
  requeueOnPreempt: false,
  gracePeriod: null,
  ...over,
});
const errorsOf = (c: JobContract, cluster?: { maxMinRuntime?: number | null }): string[] => {
  const r = validateJobContract(c, nodes, defaultPolicy, cluster);
  return r.ok ? [] : r.errors;
};

describe("validateJobContract", () => {
  it("accepts a well-formed single-node job and a whole-node multi-node job", () => {
    expect(validateJobContract(job(), nodes, defaultPolicy)).toEqual({ ok: true });
    expect(validateJobContract(job({ gpus: 16 }), nodes, defaultPolicy)).toEqual({ ok: true });
  });

  it("rejects zero and negative GPU counts with a specific message", () => {
    expect(errorsOf(job({ gpus: 0 }))).toEqual(["The number of GPUs must be at least 1, got 0"]);
    expect(errorsOf(job({ gpus: -3 }))).toEqual(["The number of GPUs must be at least 1, got -3"]);
  });

  it("rejects more GPUs than the cluster has", () => {
    expect(errorsOf(job({ gpus: 40 }))).toEqual(["40 GPUs are more than the cluster has (32)"]);
  });

  it("rejects multi-node sizes that are not whole nodes and suggests the neighbours", () => {
    expect(errorsOf(job({ gpus: 12 }))[0]).toBe(
      "12 GPUs span several nodes but are not a multiple of the node size, 8 (use 8 or 16)",
    );
  });

  it("rejects a negative minRuntime and one above the cap, honouring a cluster's own cap", () => {
    expect(errorsOf(job({ minRuntime: -1 }))).toEqual(["Minimum runtime must not be negative, got -1 s"]);
    expect(errorsOf(job({ minRuntime: 9 * 3600 }))).toEqual(["Minimum runtime 9 h is above the cluster's limit of 8 h"]);
    expect(errorsOf(job({ minRuntime: 3 * 3600 }), { maxMinRuntime: 2 * 3600 })).toEqual([
      "Minimum runtime 3 h is above the cluster's limit of 2 h",
    ]);
  });

  it("rejects a grace period above ten minutes", () => {
    expect(errorsOf(job({ gracePeriod: 601 }))).toEqual(["Grace period 10 min 1 s is above the maximum of 10 min"]);
  });

  it("reports every problem at once, each with the input field it is about", () => {
    const r = validateJobContract(job({ gpus: 0, minRuntime: -5, gracePeriod: 700 }), nodes, defaultPolicy);
    expect(r.ok ? [] : r.errors).toHaveLength(3);
    expect(r.ok ? [] : r.fields).toEqual(["gpus", "minRuntime", "gracePeriod"]);
  });

  it("says each problem in the submit form's words, never an input field's name", () => {
    const all = [
      job({ gpus: 1.5 }),
      job({ gpus: 40 }),
      job({ gpus: 12 }),
      job({ minRuntime: 1.5 }),
      job({ minRuntime: 9 * 3600 }),
      job({ maxRuntime: -1 }),
      job({ minRuntime: 3600, maxRuntime: 600 }),
      job({ gracePeriod: -1 }),
      job({ priority: 0.5 }),
    ].flatMap((c) => errorsOf(c));
    expect(all).toHaveLength(9);
    for (const e of all) expect(e).not.toMatch(/\b(gpus|minRuntime|maxRuntime|gracePeriod|priority)\b/);
    expect(errorsOf(job({ minRuntime: 3600, maxRuntime: 600 }))).toEqual([
      "Maximum runtime 10 min is shorter than the minimum runtime, 1 h",
    ]);
  });
});

describe("contract helpers", () => {
  it("puts short small jobs in the debug lane and nothing else", () => {
    expect(isDebugLane(job({ gpus: 8, maxRuntime: 900 }), defaultPolicy)).toBe(true);
    expect(isDebugLane(job({ gpus: 8, maxRuntime: 901 }), defaultPolicy)).toBe(false);
    expect(isDebugLane(job({ gpus: 16, maxRuntime: 600 }), defaultPolicy)).toBe(false);
    expect(isDebugLane(job({ gpus: 1, maxRuntime: null }), defaultPolicy)).toBe(false);
  });

  it("calls a job allocated only when it has a minRuntime and its budget has entitlement", () => {
    expect(isAllocated({ minRuntime: 60 }, true)).toBe(true);
    expect(isAllocated({ minRuntime: 0 }, true)).toBe(false);
    expect(isAllocated({ minRuntime: 60 }, false)).toBe(false);
  });

  it("classifies a job once: lane, charge, grace and protection", () => {
    const c = { gpus: 2, minRuntime: 300, maxRuntime: 600, gracePeriod: null };
    expect(classifyJob(c, true, defaultPolicy)).toEqual({ lane: "DEBUG", charged: true, grace: 120, protection: 300 });
    expect(classifyJob({ ...c, minRuntime: 0 }, true, defaultPolicy)).toEqual({
      lane: "UNALLOCATED",
      charged: false,
      grace: 10,
      protection: 0,
    });
    expect(classifyJob({ ...c, maxRuntime: null }, false, defaultPolicy)).toMatchObject({ lane: "UNALLOCATED", protection: 0 });
    expect(classifyJob({ ...c, gpus: 16, gracePeriod: 30 }, true, defaultPolicy)).toMatchObject({ lane: "ALLOCATED", grace: 30 });
  });

  it("gives the default grace per occupancy kind and caps a requested one", () => {
    expect(gracePeriodFor({ gracePeriod: null }, true, defaultPolicy)).toBe(120);
    expect(gracePeriodFor({ gracePeriod: null }, false, defaultPolicy)).toBe(10);
    expect(gracePeriodFor({ gracePeriod: 300 }, false, defaultPolicy)).toBe(300);
    expect(gracePeriodFor({ gracePeriod: 5000 }, true, defaultPolicy)).toBe(600);
  });

  it("requeues resumable jobs and jobs that asked to be", () => {
    expect(requeueAfterPreemption({ resumable: true, requeueOnPreempt: false })).toBe(true);
    expect(requeueAfterPreemption({ resumable: false, requeueOnPreempt: true })).toBe(true);
    expect(requeueAfterPreemption({ resumable: false, requeueOnPreempt: false })).toBe(false);
  });
});
