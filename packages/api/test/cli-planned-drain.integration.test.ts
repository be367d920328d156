// `tranche node drain --at` and `tranche node cancel-drain`: the real CLI process against the real REST
// handler and a real Postgres, in a time zone of its own (TZ), as an operator plans a driver upgrade.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCliStack, type CliStack } from "./cli-stack";

type Who = "omar" | "ada";
let stack: CliStack<Who>;
let tz: string | undefined;

beforeAll(async () => {
  // The CLI processes inherit it: Berlin is +01:00 in December.
  tz = process.env.TZ;
  process.env.TZ = "Europe/Berlin";
  stack = await startCliStack("api_cli_planned_drain", { users: ["omar", "ada"], tmpPrefix: "tranche-cli-plan-" });
});
afterAll(() => {
  if (tz === undefined) delete process.env.TZ;
  else process.env.TZ = tz;
  return stack?.stop();
});

const cli = (who: Who, args: string[]) => stack.cli(args, who);
const planOf = async () =>
  await stack.w.db.prisma.node.findUniqueOrThrow({ where: { name: "b200-4" }, select: { drainAt: true, drainReason: true } });

describe("tranche node drain --at", () => {
  it("plans a drain at a local time, shows it in words, and cancels it", async () => {
    const r = await cli("omar", ["node", "drain", "b200-4", "--at", "2030-12-14 02:00", "--reason", "driver 560"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(
      "b200-4 is ready, with maintenance at Sat 14 Dec 2030 02:00 (driver 560, planned by Omar Operator): until then only work that can leave by then starts there, and then it drains.\n",
    );
    expect(await planOf()).toEqual({ drainAt: new Date("2030-12-14T01:00:00Z"), drainReason: "driver 560" });
    const list = await cli("ada", ["nodes", "b200"]);
    expect(list.stdout).toMatch(
      /\nb200-4\s+b200\s+ready\s+0 of 8\s+-\s+never\s+maintenance at Sat 14 Dec 2030 02:00 \(driver 560, planned by Omar Operator\)\n/,
    );
    const show = await cli("ada", ["node", "show", "b200-4"]);
    expect(show.stdout).toContain("  planned: maintenance at Sat 14 Dec 2030 02:00 (driver 560, planned by Omar Operator)\n");

    const cancelled = await cli("omar", ["node", "cancel-drain", "b200-4"]);
    expect(cancelled.stdout).toBe("b200-4's planned drain is cancelled; b200-4 is ready: new work may start there.\n");
    expect(await planOf()).toEqual({ drainAt: null, drainReason: null });
  });

  it("refuses an ambiguous time before any request, and a researcher, changing nothing", async () => {
    const bad = await cli("omar", ["node", "drain", "b200-4", "--at", "14/12 02:00"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--at takes a date and a time as year-month-day hours:minutes");
    const twice = await cli("omar", ["node", "drain", "b200-4", "--at", "2030-10-27 02:30"]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain("happens twice in your time zone");
    const past = await cli("omar", ["node", "drain", "b200-4", "--at", "2020-01-01 02:00"]);
    expect(past.code).toBe(1);
    expect(past.stderr).toContain("at has passed");
    const researcher = await cli("ada", ["node", "drain", "b200-4", "--at", "2030-12-14 02:00"]);
    expect(researcher.code).toBe(1);
    expect(researcher.stderr).toContain("drain nodes");
    expect(await planOf()).toEqual({ drainAt: null, drainReason: null });
    const none = await cli("omar", ["node", "cancel-drain", "b200-4"]);
    expect(none.stderr).toBe("tranche: b200-4 has no planned drain to cancel\n");
  });
});
