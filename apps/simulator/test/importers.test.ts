import { describe, expect, it } from "vitest";
import { importHeliosRows, parseHeliosJobs } from "../src/importers/helios.js";
import { importPhillyRows, parseNodeCounts, parsePhillyJobs } from "../src/importers/philly.js";
import { demandRatio, markOverflowUnallocated } from "../src/importers/common.js";
import { formatTraceCsv, parseTraceCsv } from "../src/trace.js";

const PHILLY = [
  "vc,submit_offset_s,num_gpus,duration_s",
  "aaa,0,1,600",
  "aaa,100,8,90000",
  "aaa,200,12,3600",
  "bbb,0,2,900",
  "bbb,86400,16,1000",
  "zzz,50,1,30",
].join("\r\n");
const COUNTS = "vc,node num\naaa,3\nbbb,1\n";

describe("Philly importer", () => {
  it("maps VCs to budgets with node-count allocations and aligns each VC's first job at t = 0", () => {
    const r = importPhillyRows(parsePhillyJobs(PHILLY), parseNodeCounts(COUNTS));
    expect(r.budgets.children.map((b) => [b.name, b.allocation.philly])).toEqual([
      ["aaa", 0.75],
      ["bbb", 0.25],
      ["zzz", 0],
    ]);
    expect(r.clusters).toEqual([{ name: "philly", gpuType: "P100", nodes: 4, gpusPerNode: 8 }]);
    expect(r.jobs.map((j) => [j.id, j.submit, j.gpus])).toEqual([
      ["aaa-0", 0, 1],
      ["bbb-0", 0, 2],
      ["zzz-0", 50, 1],
      ["aaa-1", 100, 8],
      ["aaa-2", 200, 16],
      ["bbb-1", 86400, 16],
    ]);
  });

  it("derives contracts: min_runtime = min(duration, 2h), debug lane for <= 15 min on <= 8 GPUs", () => {
    const r = importPhillyRows(parsePhillyJobs(PHILLY), parseNodeCounts(COUNTS));
    const byId = new Map(r.jobs.map((j) => [j.id, j]));
    expect(byId.get("aaa-0")).toMatchObject({ minRuntime: 600, maxRuntime: 900, resumable: true, user: "aaa" });
    expect(byId.get("aaa-1")).toMatchObject({ minRuntime: 7200, maxRuntime: null });
    expect(byId.get("bbb-0")).toMatchObject({ minRuntime: 900, maxRuntime: 900 });
    expect(byId.get("bbb-1")).toMatchObject({ minRuntime: 1000, maxRuntime: null });
  });

  it("keeps a window of days, shifted to start at 0, and sizes the cluster for a target load", () => {
    const r = importPhillyRows(parsePhillyJobs(PHILLY), parseNodeCounts(COUNTS), { fromDay: 1, days: 1, load: 2 });
    expect(r.jobs.map((j) => [j.id, j.submit])).toEqual([["bbb-1", 0]]);
    // 16 GPUs x 1000 s over one day at load 2 needs a fraction of a node, but the job needs 2.
    expect(r.clusters[0]!.nodes).toBe(2);
    const big = importPhillyRows(parsePhillyJobs(PHILLY), parseNodeCounts(COUNTS), { load: 2 });
    expect(demandRatio(big.jobs, big.clusters[0]!, big.span)).toBeLessThanOrEqual(2);
  });

  it("replays warm-up days before the window and sizes the cluster on the window only", () => {
    const r = importPhillyRows(parsePhillyJobs(PHILLY), parseNodeCounts(COUNTS), {
      fromDay: 1,
      days: 1,
      warmupDays: 1,
      load: 0.1,
    });
    // t = 0 is day 0 (the warm-up), so the window's job keeps t = 86400.
    expect(r.jobs.map((j) => [j.id, j.submit])).toEqual([
      ["aaa-0", 0],
      ["bbb-0", 0],
      ["zzz-0", 50],
      ["aaa-1", 100],
      ["aaa-2", 200],
      ["bbb-1", 86400],
    ]);
    expect(r.span).toBe(2 * 86400);
    // Day 1 alone (16 GPUs x 1000 s at load 0.1) needs under a node, the job 2; day 0's 8-GPU x 25 h
    // job would ask for 6.
    expect(r.clusters[0]!.nodes).toBe(2);
  });

  it("writes a trace CSV that the trace parser reads back unchanged", () => {
    const r = importPhillyRows(parsePhillyJobs(PHILLY), parseNodeCounts(COUNTS));
    const csv = formatTraceCsv(r.jobs);
    const back = parseTraceCsv(csv, "philly.csv", {
      clusters: new Map(r.clusters.map((c) => [c.name, c])),
      budgets: new Set(["aaa", "bbb", "zzz"]),
      treePaths: new Set(["aaa", "bbb", "zzz"]),
      maxMinRuntime: 8 * 3600,
    });
    expect(back.errors).toEqual([]);
    expect(back.jobs).toEqual(r.jobs);
  });
});

describe("the overflow rule", () => {
  it("makes a team's regular work beyond its share unallocated, in submit order, and keeps debug jobs", () => {
    const job = (id: string, submit: number, gpus: number, duration: number, maxRuntime: number | null = null) => ({
      id,
      submit,
      budget: "t",
      user: "t",
      cluster: "c",
      gpus,
      duration,
      minRuntime: Math.min(duration, 7200),
      maxRuntime,
      resumable: true,
      priority: 0,
    });
    const out = markOverflowUnallocated(
      [job("a", 0, 4, 1000), job("b", 10, 4, 1000), job("c", 20, 1, 100), job("d", 30, 2, 600, 900), job("e", 1000, 4, 50)],
      new Map([["t", 8]]),
    );
    // a + b fill the share of 8; c would be the 9th GPU; the debug job d keeps its contract; by
    // t = 1000 a has ended, so e fits again.
    expect(out.map((j) => [j.id, j.minRuntime])).toEqual([
      ["a", 1000],
      ["b", 1000],
      ["c", 0],
      ["d", 600],
      ["e", 50],
    ]);
  });
});

describe("Helios importer", () => {
  const HELIOS = [
    "u_id,user,gpu_num,cpu_num,node_num,interval,run_time,wall_time,new_status",
    "0,1,1,1,1,0,84,0,Pass",
    "1,2,0,4,1,30,100,0,Pass",
    "2,2,16,32,2,70,7200,0,Killed",
    "3,1,8,8,1,10,0,0,Failed",
  ].join("\n");

  it("turns users into budgets, intervals into submit times and skips CPU-only rows", () => {
    const r = importHeliosRows(parseHeliosJobs(HELIOS));
    expect(r.jobs.map((j) => [j.id, j.submit, j.budget, j.gpus, j.duration, j.maxRuntime])).toEqual([
      ["h0", 0, "u1", 1, 84, 900],
      ["h2", 100, "u2", 16, 7200, null],
      ["h3", 110, "u1", 8, 1, 900],
    ]);
    const alloc = Object.fromEntries(r.budgets.children.map((b) => [b.name, b.allocation.helios]));
    // GPU-seconds: u1 = 84 + 8, u2 = 16 x 7200.
    expect(alloc.u1).toBeCloseTo(92 / (92 + 115200), 5);
    expect(alloc.u1! + alloc.u2!).toBeLessThanOrEqual(1);
    expect(r.clusters[0]).toMatchObject({ name: "helios", nodes: 121, gpusPerNode: 8 });
  });

  it("charges each named user's jobs to its team path, leaves the others out, and runs a fraction unallocated", () => {
    const rows = ["u_id,user,gpu_num,cpu_num,node_num,interval,run_time,wall_time,new_status"];
    for (let i = 0; i < 2000; i++) rows.push(`${i},${1 + (i % 3)},1,1,1,10,${i % 2 === 0 ? 600 : 7200},0,Pass`);
    const opts = { teams: { "1": "lab/one", "2": "lab/two" }, unallocatedFraction: { "lab/two": 0.5 } };
    const r = importHeliosRows(parseHeliosJobs(rows.join("\n")), opts);
    expect(new Set(r.jobs.map((j) => j.budget))).toEqual(new Set(["lab/one", "lab/two"]));
    expect(r.jobs.some((j) => j.user === "u3")).toBe(false);
    expect(r.jobs[0]!.submit).toBe(0);
    const regular = (b: string) => r.jobs.filter((j) => j.budget === b && j.maxRuntime === null);
    const share = regular("lab/two").filter((j) => j.minRuntime === 0).length / regular("lab/two").length;
    expect(share).toBeGreaterThan(0.4);
    expect(share).toBeLessThan(0.6);
    expect(regular("lab/one").every((j) => j.minRuntime > 0)).toBe(true);
    expect(r.jobs.filter((j) => j.maxRuntime !== null).every((j) => j.minRuntime > 0)).toBe(true);
  });

  it("refuses a user that is not in the trace, a path that is not one, and a fraction for no team", () => {
    const rows = () => parseHeliosJobs(HELIOS);
    expect(() => importHeliosRows(rows(), { teams: { "9": "a/b" } })).toThrow('teams.9: no user "9" in the trace');
    expect(() => importHeliosRows(rows(), { teams: { "1": "a//b" } })).toThrow("teams.1: must be a budget path");
    expect(() => importHeliosRows(rows(), { teams: { "1": "a/b" }, unallocatedFraction: { "c/d": 0.5 } })).toThrow(
      'no imported job is charged to budget "c/d"',
    );
  });
});

describe("Philly importer options for a lab's own tree", () => {
  const rows = () => parsePhillyJobs(PHILLY);
  const counts = () => parseNodeCounts(COUNTS);

  it("charges each VC's jobs to its team path and keeps only the VCs named", () => {
    const r = importPhillyRows(rows(), counts(), { teams: { aaa: "lab/one", bbb: "lab/two" } });
    expect(new Set(r.jobs.map((j) => j.budget))).toEqual(new Set(["lab/one", "lab/two"]));
    expect(r.jobs.some((j) => j.id.startsWith("zzz"))).toBe(false);
  });

  it("refuses a VC that is not in the trace, a path that is not one, and teams with the overflow rule", () => {
    expect(() => importPhillyRows(rows(), counts(), { teams: { nope: "a/b" } })).toThrow('teams.nope: no VC "nope" in the trace');
    expect(() => importPhillyRows(rows(), counts(), { teams: { aaa: "a//b" } })).toThrow("teams.aaa: must be a budget path");
    expect(() => importPhillyRows(rows(), counts(), { teams: { aaa: "a/b" }, overflow: true })).toThrow(
      "overflow: cannot be combined with teams",
    );
  });

  it("runs a fixed, id-chosen fraction of a budget's regular jobs unallocated and leaves debug jobs alone", () => {
    const many = ["vc,submit_offset_s,num_gpus,duration_s"];
    for (let i = 0; i < 2000; i++) many.push(`aaa,${i},1,${i % 2 === 0 ? 600 : 7200}`);
    const opts = { unallocatedFraction: { aaa: 0.5 } };
    const a = importPhillyRows(parsePhillyJobs(many.join("\n")), counts(), opts);
    const b = importPhillyRows(parsePhillyJobs(many.join("\n")), counts(), opts);
    expect(a.jobs.map((j) => j.minRuntime)).toEqual(b.jobs.map((j) => j.minRuntime));
    const regular = a.jobs.filter((j) => j.maxRuntime === null);
    const share = regular.filter((j) => j.minRuntime === 0).length / regular.length;
    expect(share).toBeGreaterThan(0.45);
    expect(share).toBeLessThan(0.55);
    expect(a.jobs.filter((j) => j.maxRuntime !== null).every((j) => j.minRuntime > 0)).toBe(true);
  });

  it("refuses an unallocated fraction outside 0..1 or for a budget no job is charged to", () => {
    expect(() => importPhillyRows(rows(), counts(), { unallocatedFraction: { aaa: 1.5 } })).toThrow(
      "unallocatedFraction.aaa: must be a number from 0 to 1",
    );
    expect(() => importPhillyRows(rows(), counts(), { unallocatedFraction: { qqq: 0.5 } })).toThrow(
      'no imported job is charged to budget "qqq"',
    );
  });

  it("carries jobs still running at the replay's start in at t = 0 with the work they have left", () => {
    const text = ["vc,submit_offset_s,num_gpus,duration_s", "aaa,0,1,600", "aaa,100,8,200000", "aaa,90000,1,60"].join("\n");
    const r = importPhillyRows(parsePhillyJobs(text), counts(), { fromDay: 1, carryOver: true });
    expect(r.jobs.map((j) => [j.id, j.submit, j.duration])).toEqual([
      ["aaa-1", 0, 100 + 200000 - 86400],
      ["aaa-2", 90000 - 86400, 60],
    ]);
  });
});
