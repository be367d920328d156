// `tranche cancel|hold|release` on many jobs at once, by ids or by a filter: the real CLI process against
// the real REST handler and a real Postgres. Its stdin is no terminal here, as in a script.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { submitJobInput } from "@tranche/contracts";
import { submitJob, type Actor } from "@tranche/domain";
import { goodJob } from "./fixtures";
import { startCliStack, type CliStack } from "./cli-stack";

let stack: CliStack<"ada" | "other">;

beforeAll(async () => {
  stack = await startCliStack("api_cli_job_actions", { users: ["ada", "other"], tmpPrefix: "tranche-cli-actions-" });
});
afterAll(() => stack?.stop());

const cli = (args: string[], as: "ada" | "other" = "ada") => stack.cli(args, as);

async function jobOf(who: Actor, name: string): Promise<number> {
  const budget = who.id === stack.w.users.other.id ? "lab/vision/video" : "lab/language/pretraining";
  return (await submitJob(stack.w.db.prisma, who, submitJobInput.parse({ ...goodJob, name, budget }))).id;
}
const statesOf = async (ids: number[]) => {
  const rows = await stack.w.db.prisma.job.findMany({ where: { id: { in: ids } }, orderBy: { id: "asc" } });
  return rows.map((r) => r.state);
};

describe("tranche cancel 41 42 43", () => {
  it("cancels the jobs it may, names each refused one with its reason, and exits non-zero", async () => {
    const [a, b] = [await jobOf(stack.w.users.ada, "ids"), await jobOf(stack.w.users.ada, "ids")];
    const theirs = await jobOf(stack.w.users.other, "ids");
    const r = await cli(["cancel", String(a), String(theirs), String(b), "2000000000"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(`Cancelled 2 jobs: #${a}, #${b}; a running one stops within its grace period.\n`);
    expect(r.stderr).toBe(
      `tranche: 2 jobs not cancelled:\n  #${theirs}: You have no job ${theirs}\n  #2000000000: You have no job 2000000000\n`,
    );
    expect(await statesOf([a, b, theirs])).toEqual(["CANCELLED", "CANCELLED", "PENDING"]);

    // Every one done: exit 0. --json: the answer as the API gives it.
    const [c, d] = [await jobOf(stack.w.users.ada, "ids"), await jobOf(stack.w.users.ada, "ids")];
    const held = await cli(["--json", "hold", String(c), String(d)]);
    expect([held.code, held.stderr]).toEqual([0, ""]);
    expect(JSON.parse(held.stdout)).toEqual({ action: "hold", done: [c, d], refused: [] });
  });

  it("still acts on one job as before", async () => {
    const a = await jobOf(stack.w.users.ada, "one");
    expect(await cli(["cancel", String(a)])).toEqual({ code: 0, stdout: `Job #${a} cancelled.\n`, stderr: "" });
  });

  it("refuses unclear requests before sending any, naming the way to say it", async () => {
    const cases: [string[], string][] = [
      [["cancel"], "Name the jobs: tranche cancel 41 42 43, or your jobs by a filter"],
      [
        ["cancel", "41", "--state", "pending"],
        "Name the jobs by their ids or by --state, --name, --cluster and --budget, not both",
      ],
      [["hold", "41", "--everyone"], "--everyone goes with a filter"],
      [["release", "41", "4x"], "job id must be a whole number written in digits (such as 42), got '4x'"],
      [["cancel", "--array", "41", "42"], "--array takes one array's id and no filter"],
    ];
    for (const [args, message] of cases) {
      const r = await cli(args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toContain(message);
    }
    const bad = await cli(["cancel", "--state", "stopping"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /option '--state <state>' argument 'stopping' is invalid. Allowed choices are pending, running, held/,
    );
  });
});

describe("tranche hold --state pending --name sweep", () => {
  it("refuses without a terminal to confirm on and without --yes, changing nothing", async () => {
    const mine = [await jobOf(stack.w.users.ada, "sweep"), await jobOf(stack.w.users.ada, "sweep")];
    const before = await stack.w.counts();
    const r = await cli(["hold", "--state", "pending", "--name", "sweep"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("tranche: Hold 2 jobs? There is no terminal to ask on: add --yes to hold them (nothing was held).\n");
    expect(await stack.w.counts()).toEqual(before);
    expect(await statesOf(mine)).toEqual(["PENDING", "PENDING"]);
  });

  it("with --yes holds the caller's own jobs that match, and only those", async () => {
    const mine = [await jobOf(stack.w.users.ada, "yes-sweep"), await jobOf(stack.w.users.ada, "yes-sweep")];
    const theirs = await jobOf(stack.w.users.other, "yes-sweep");
    const r = await cli(["hold", "--state", "pending", "--name", "yes-sweep", "--cluster", "h100", "--yes"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).toBe(`Held 2 jobs: #${mine[0]}, #${mine[1]}; the scheduler skips them until they are released.\n`);
    expect(await statesOf([...mine, theirs])).toEqual(["HELD", "HELD", "PENDING"]);

    const none = await cli(["release", "--state", "held", "--name", "no-such-name"]);
    expect([none.code, none.stdout]).toEqual([0, "No job of yours matches: nothing to release.\n"]);
    // A researcher's --everyone: the server's refusal, nothing changed.
    const everyone = await cli(["release", "--name", "yes-sweep", "--everyone", "--yes"]);
    expect(everyone.code).toBe(1);
    expect(everyone.stderr).toContain(
      "Only managers (for the budgets they manage), operators and admins may release others' jobs; you are signed in as a researcher",
    );
    expect(await statesOf([...mine, theirs])).toEqual(["HELD", "HELD", "PENDING"]);
  });
});
