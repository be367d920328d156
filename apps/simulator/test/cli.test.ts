import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../../..");
const MAIN = "apps/simulator/src/main.ts";

function sim(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ["--import", "tsx", MAIN, ...args], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("the sim command", { timeout: 60_000 }, () => {
  it("writes the report and the events file and exits 0", () => {
    const dir = mkdtempSync(join(tmpdir(), "sim-cli-"));
    const out = join(dir, "report.json");
    const ev = join(dir, "events.jsonl");
    const r = sim(["apps/simulator/test/fixtures/tiny.yaml", "--policy", "fifo", "--out", out, "--events", ev]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const report = JSON.parse(readFileSync(out, "utf8")) as { policy: string; sim: { events: number } };
    expect(report.policy).toBe("fifo");
    const lines = readFileSync(ev, "utf8").trim().split("\n");
    expect(lines.length).toBe(report.sim.events);
    expect(JSON.parse(lines[0]!)).toEqual({ t: 0, type: "submit", job: "a", budget: "nlp", gpus: 8 });
  });

  it("exits 2 on a bad trace, lists every error with its line and writes nothing", () => {
    const dir = mkdtempSync(join(tmpdir(), "sim-cli-"));
    writeFileSync(
      join(dir, "jobs.csv"),
      [
        "id,submit,budget,user,cluster,gpus,duration,min_runtime,max_runtime,resumable,priority",
        "a,0,team,,,1,60,,,,",
        "a,0,team,,,1,60,,,,",
        "b,0,ghost,,,1,60,,,,",
        "c,0,team,,tpu,1,60,,,,",
        "d,0,team,,,99,60,,,,",
        "e,zero,team",
      ].join("\n"),
    );
    writeFileSync(
      join(dir, "s.yaml"),
      "clusters: [{ name: c, nodes: 2 }]\nbudgets: { name: r, children: [{ name: team, allocation: { c: 1 } }] }\njobs: jobs.csv\n",
    );
    const out = join(dir, "report.json");
    const ev = join(dir, "events.jsonl");
    const r = sim([join(dir, "s.yaml"), "--out", out, "--events", ev]);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("5 error(s)");
    expect(r.stderr).toContain('jobs.csv:3: duplicate job id "a" (first on line 2)');
    expect(r.stderr).toContain('jobs.csv:4: unknown budget "ghost"');
    expect(r.stderr).toContain('jobs.csv:5: unknown cluster "tpu"');
    expect(r.stderr).toContain('jobs.csv:6: gpus 99 is more than cluster "c" has (16)');
    expect(r.stderr).toContain("jobs.csv:7: malformed row: 3 fields, expected 11");
    expect(existsSync(out)).toBe(false);
    expect(existsSync(ev)).toBe(false);
    expect(existsSync(`${ev}.partial`)).toBe(false);
  });

  it("exits 2 on an unknown policy or a missing scenario file", () => {
    expect(sim(["apps/simulator/test/fixtures/tiny.yaml", "--policy", "lottery"]).status).toBe(2);
    const missing = sim(["no/such/scenario.yaml"]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("no/such/scenario.yaml: cannot read");
  });
});
