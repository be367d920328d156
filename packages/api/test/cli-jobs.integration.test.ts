// `tranche queue` as a researcher reads it: the real CLI process against the real REST handler (served over
// HTTP from this test) and a real Postgres.
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

describe("tranche queue --limit", () => {
  it("refuses a limit that is not a positive whole number, naming the option, and exits 1", async () => {
    for (const limit of ["0", "-2", "abc", "2.5"]) {
      const r = await cli(["queue", "h100", "--limit", limit]);
      expect([r.code, r.stdout, r.stderr], limit).toEqual([
        1,
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
