// `tranche submit --file jobs.jsonl`: the real CLI process against the real REST handler (served over
// HTTP from this test) and a real Postgres.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCliStack, type CliResult, type CliStack } from "./cli-stack";
import { goodJob, type World } from "./fixtures";

let stack: CliStack<"ada">;
let w: World;

beforeAll(async () => {
  stack = await startCliStack("api_cli_file");
  w = stack.w;
});
afterAll(() => stack?.stop());

const cli = (args: string[]) => stack.cli(args);

const file = (name: string, lines: unknown[]) => {
  const p = join(stack.dir, name);
  writeFileSync(p, lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n") + "\n");
  return p;
};

describe("tranche submit --file", () => {
  it("submits every line as one batch and prints the jobs with --json", async () => {
    const before = await w.counts();
    const p = file("good.jsonl", [{ ...goodJob, name: "f-0" }, "", { ...goodJob, name: "f-1", gpus: 1, minRuntime: 0 }]);
    const r = await cli(["--json", "submit", "--file", p]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { jobs: { id: number; name: string; state: string }[] };
    expect(out.jobs.map((j) => [j.name, j.state])).toEqual([
      ["f-0", "PENDING"],
      ["f-1", "PENDING"],
    ]);
    expect(await w.counts()).toEqual({ ...before, jobs: before.jobs + 2, events: before.events + 2 });
    const text = await cli(["submit", "--file", file("one.jsonl", [goodJob])]);
    expect(text.stdout).toMatch(/^Submitted 1 job \(#\d+\), 8 GPUs in all/);
  });

  it("a bad line stops it before any request, naming the line; a refused item names its line too", async () => {
    const before = await w.counts();
    const bad = await cli(["submit", "--file", file("bad.jsonl", [goodJob, { ...goodJob, gpus: 0 }])]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/bad\.jsonl line 2: The number of GPUs must be at least 1/);
    const notJson = await cli(["submit", "--file", file("nj.jsonl", [goodJob, "{nope"])]);
    expect(notJson.stderr).toMatch(/nj\.jsonl line 2: not valid JSON/);
    const forbidden = await cli([
      "submit",
      "--file",
      file("forbidden.jsonl", [goodJob, goodJob, { ...goodJob, budget: "lab/vision/video" }]),
    ]);
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toMatch(
      /forbidden\.jsonl line 3: You may not charge budget 'lab\/vision\/video'.*members\. Nothing was submitted\./,
    );
    const unknown = await cli(["submit", "--file", file("unknown.jsonl", [{ ...goodJob, cluster: "tpu" }])]);
    expect(unknown.stderr).toMatch(/unknown\.jsonl line 1: Unknown cluster 'tpu'/);
    const both = await cli(["submit", "--file", file("x.jsonl", [goodJob]), "--gpus", "8"]);
    expect(both.stderr).toMatch(/--file takes the jobs from the file/);
    expect(await w.counts()).toEqual(before);
  });

  it("splits a file whose jobs pass the batch byte limit into batches under it", async () => {
    const before = await w.counts();
    // 300 jobs of ~31 KB: about 9.3 MB, more than one 8 MiB batch body.
    const pad = { P1: "a".repeat(10_240), P2: "b".repeat(10_240), P3: "c".repeat(10_240) };
    const jobs = Array.from({ length: 300 }, (_, i) => ({ ...goodJob, name: `big-${i}`, env: pad }));
    const r = await cli(["submit", "--file", file("big.jsonl", jobs)]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Submitted 300 jobs \(#\d+-#\d+\), 2400 GPUs in all/);
    const stored = await w.db.prisma.job.findMany({ where: { name: { startsWith: "big-" } }, orderBy: { id: "asc" } });
    expect(stored.map((j) => j.name)).toEqual(jobs.map((j) => j.name));
    expect((await w.counts()).jobs).toBe(before.jobs + 300);
  });
});

describe("tranche submit -- command / --script", () => {
  const flags = [
    "--json",
    "submit",
    "--cluster",
    "h100",
    "--budget",
    "lab/language/pretraining",
    "--gpus",
    "1",
    "--min-runtime",
    "0",
  ];
  const stored = async (r: CliResult) => {
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const { job } = JSON.parse(r.stdout) as { job: { id: number; resumable: boolean } };
    return { job, row: await w.db.prisma.job.findUniqueOrThrow({ where: { id: job.id } }) };
  };

  it("stores argv exactly, quoted for the shell, so a bash -c loop runs as typed", async () => {
    const { job, row } = await stored(await cli([...flags, "--", "bash", "-c", "for i in 1 2; do echo $i; done"]));
    expect(row.command).toBe("bash -c 'for i in 1 2; do echo $i; done'");
    // The same default as the form and REST: not resumable unless said.
    expect(job.resumable).toBe(false);
  });

  it("takes a script file with --script, lines and #! interpreter kept", async () => {
    const p = join(stack.dir, "train.sh");
    writeFileSync(p, "#!/bin/bash\nfor i in 1 2; do\n  echo $i\ndone\n");
    const { row } = await stored(await cli([...flags, "--script", p]));
    expect(row.command).toBe("/bin/bash -c '#!/bin/bash\nfor i in 1 2; do\n  echo $i\ndone\n'");
    const both = await cli([...flags, "--script", p, "--", "echo", "x"]);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain("either --script FILE or a command after --");
  });
});
