// `tranche logs`, `tranche queue` and `tranche explain` as a researcher reads them: the real CLI process
// against the real REST handler (served over HTTP from this test) and a real Postgres.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { submitJobInput } from "@tranche/contracts";
import { submitJob } from "@tranche/domain";
import { goodJob } from "./fixtures";
import { startCliStack, type CliStack } from "./cli-stack";

let stack: CliStack<"ada">;

beforeAll(async () => {
  stack = await startCliStack("api_cli_jobs", { tmpPrefix: "tranche-cli-jobs-" });
});
afterAll(() => stack?.stop());

const cli = (args: string[]) => stack.cli(args);

/** A job of Ada's that ran on whole h100 nodes (as their agents reported it) and printed `chunks`, in order. */
async function ranOn(nodes: string[], chunks: [node: string, text: string][]): Promise<number> {
  const { prisma } = stack.w.db;
  const rows = await prisma.node.findMany({ where: { name: { in: nodes } } });
  const job = await submitJob(
    prisma,
    stack.w.users.ada,
    submitJobInput.parse({ ...goodJob, gpus: 8 * nodes.length, name: "train" }),
  );
  const at = new Date();
  const row = await prisma.job.update({ where: { id: job.id }, data: { state: "RUNNING", startedAt: at } });
  const segment = await prisma.runSegment.create({
    data: {
      jobId: job.id,
      clusterId: row.clusterId,
      budgetId: row.budgetId,
      gpus: 8 * nodes.length,
      startedAt: at,
      charged: true,
      placements: { create: rows.map((n) => ({ nodeId: n.id, gpuIndexes: [0, 1, 2, 3, 4, 5, 6, 7] })) },
    },
  });
  for (const [node, text] of chunks)
    await prisma.jobLogChunk.create({ data: { jobId: job.id, segmentId: segment.id, node, stream: "stdout", text } });
  return job.id;
}

describe("tranche logs", () => {
  it("starts each line of a job on several nodes with its node's name, and leaves a one-node job's lines as printed", async () => {
    const two = await ranOn(
      ["h100-29", "h100-30"],
      [
        ["h100-29", "step 44\n"],
        ["h100-30", "step 44\nstep "],
        ["h100-29", "step 45\n"],
        ["h100-30", "45\n"],
      ],
    );
    const r = await cli(["logs", String(two)]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).toBe("[h100-29] step 44\n[h100-30] step 44\n[h100-30] step [h100-29] step 45\n45\n");

    const one = await ranOn(["h100-31"], [["h100-31", "step 44\nstep 45\n"]]);
    expect((await cli(["logs", String(one)])).stdout).toBe("step 44\nstep 45\n");

    // --json keeps each chunk as the API gives it, its node with it.
    const json = await cli(["--json", "logs", String(two)]);
    const chunks = json.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { node: string; text: string });
    expect(chunks.map((c) => [c.node, c.text])).toEqual([
      ["h100-29", "step 44\n"],
      ["h100-30", "step 44\nstep "],
      ["h100-29", "step 45\n"],
      ["h100-30", "45\n"],
    ]);
  });

  it("says a waiting job has no output yet, rather than print nothing", async () => {
    const job = await submitJob(stack.w.db.prisma, stack.w.users.ada, submitJobInput.parse({ ...goodJob, name: "waits" }));
    const r = await cli(["logs", String(job.id)]);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      0,
      "",
      `tranche: job ${job.id} has not started yet, so it has no output; tranche logs -f ${job.id} waits for it\n`,
    ]);
  });

  it("--tail N prints the last N lines, as tail -n, however the output came in chunks", async () => {
    const id = await ranOn(
      ["h100-28"],
      [
        ["h100-28", "step 1\nstep 2\nstep 3\n"],
        ["h100-28", "step 4\nstep 5\nstep 6\n"],
        ["h100-28", "step 7\nstep 8\nstep 9\n"],
      ],
    );
    const four = await cli(["logs", "--tail", "4", String(id)]);
    expect([four.code, four.stderr, four.stdout]).toEqual([0, "", "step 6\nstep 7\nstep 8\nstep 9\n"]);
    expect((await cli(["logs", "--tail", "20", String(id)])).stdout).toBe(
      Array.from({ length: 9 }, (_, i) => `step ${i + 1}\n`).join(""),
    );
  });
});

describe("tranche queue --limit", () => {
  it("refuses a limit that is not a positive whole number, naming the option, and exits 2", async () => {
    for (const limit of ["0", "-2", "abc", "2.5"]) {
      const r = await cli(["queue", "h100", "--limit", limit]);
      expect([r.code, r.stdout, r.stderr], limit).toEqual([
        2,
        "",
        `tranche: --limit must be a positive whole number, got '${limit}'\n`,
      ]);
    }
    for (const name of ["q1", "q2", "q3"])
      await submitJob(stack.w.db.prisma, stack.w.users.ada, submitJobInput.parse({ ...goodJob, name }));
    const two = await cli(["queue", "h100", "--limit", "2"]);
    expect(two.code).toBe(0);
    const lines = two.stdout.trimEnd().split("\n");
    expect(lines[2]).toMatch(/^POS\s+ID\s+BUDGET/);
    expect(lines).toHaveLength(5);
  });
});

describe("tranche explain", () => {
  it("says when a pending job is expected to start, after which jobs, as the job page does", async () => {
    const { prisma } = stack.w.db;
    const job = await submitJob(prisma, stack.w.users.ada, submitJobInput.parse({ ...goodJob, name: "waits" }));
    const ahead = await ranOn(["h100-28"], []);
    await prisma.job.update({
      where: { id: job.id },
      data: {
        estimatedStartAt: new Date(Date.now() + 75 * 60_000 + 20_000),
        estimatedStartAfter: [ahead],
        estimatedAt: new Date(),
      },
    });
    const r = await cli(["explain", String(job.id)]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).toMatch(
      new RegExp(
        `\\nExpected to start within about 1 h 15 min \\(sooner if running jobs end early\\), after #${ahead} \\(\\d+ \\w+, \\d\\d:\\d\\d:\\d\\d\\)\\.\\n`,
      ),
    );

    // No forecast made yet: no line for it.
    await prisma.job.update({
      where: { id: job.id },
      data: { estimatedStartAt: null, estimatedStartAfter: [], estimatedAt: null },
    });
    expect((await cli(["explain", String(job.id)])).stdout).not.toMatch(/expected to start/i);
  });
});
