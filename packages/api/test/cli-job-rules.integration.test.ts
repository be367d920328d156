// `tranche submit --array/--after/--retries`, `tranche cancel --array`, `tranche hold`/`release`, `tranche
// update`, `tranche depend`, `tranche notifications`, `tranche webhook`: the real CLI process against the REST handler
// served over HTTP and a real Postgres.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCliStack, type CliStack } from "./cli-stack";
import type { World } from "./fixtures";

let stack: CliStack<"ada">;
let w: World;

beforeAll(async () => {
  stack = await startCliStack("api_cli_rules");
  w = stack.w;
});
afterAll(() => stack?.stop());

const cli = (args: string[]) => stack.cli(args);

const base = ["submit", "--cluster", "h100", "--budget", "lab/language/pretraining", "--gpus", "1", "--min-runtime", "1h"];

describe("tranche: arrays, dependencies, retries", () => {
  it("submits an array with a dependency and retries, shows the task, and cancels the whole array", async () => {
    const parent = await cli(["--json", ...base, "--", "true"]);
    const parentId = (JSON.parse(parent.stdout) as { job: { id: number } }).job.id;
    const r = await cli([...base, "--array", "0-9%2", "--after", `${parentId}:ok`, "--retries", "2", "--", "echo", "hi"]);
    expect(r.stderr).toBe("");
    const id = Number(/Submitted array #(\d+)/.exec(r.stdout)![1]);
    const tasks = await w.db.prisma.job.findMany({ where: { arrayJobId: id }, include: { dependencies: true } });
    expect(tasks).toHaveLength(10);
    expect(tasks.every((t) => t.maxRetries === 2 && t.dependencies[0]?.parentId === parentId)).toBe(true);
    const explain = await cli(["explain", String(tasks.find((t) => t.arrayIndex === 7)!.id)]);
    expect(explain.stdout).toContain(`Array #${id}: task 7 of 0-9%2.`);
    expect(explain.stdout).toContain(`Starts after: #${parentId} succeeds.`);
    // The timeline says what happened in words (the job page's titles), not the event kinds.
    expect(explain.stdout).toMatch(/\nTimeline:\n {2}\d{1,2} [A-Z][a-z]{2}, \d\d:\d\d:\d\d +Submitted +\S/);
    expect(explain.stdout).not.toContain("SUBMITTED");
    const cancel = await cli(["cancel", "--array", String(id)]);
    expect(cancel.stdout).toBe(`Array #${id}: 10 waiting tasks cancelled, 0 running tasks stopping.\n`);
  });

  it("holds a pending job and releases it back into the queue", async () => {
    const sub = await cli(["--json", ...base, "--", "true"]);
    const id = (JSON.parse(sub.stdout) as { job: { id: number } }).job.id;
    const hold = await cli(["hold", String(id)]);
    expect(hold.stderr).toBe("");
    expect(hold.stdout).toBe(`Job #${id} is held: the scheduler skips it until it is released (tranche release ${id}).\n`);
    // The reason a cycle wrote reads in words, as on the job page: its sentence, never its code.
    await w.db.prisma.job.update({
      where: { id },
      data: { reasonCode: "HELD", reasonSentence: "Held by its owner or an operator: it will not start until released." },
    });
    const ls = await cli(["ls"]);
    expect(ls.stdout).toMatch(new RegExp(`\\n${id} +true +HELD .* Held by its owner or an operator`));
    const explain = await cli(["explain", String(id)]);
    expect(explain.stdout).toContain("Why it waits: Held by its owner or an operator");
    expect(`${ls.stdout}${explain.stdout}`).not.toContain("HELD:");
    expect((await w.db.prisma.job.findUniqueOrThrow({ where: { id } })).state).toBe("HELD");
    const twice = await cli(["hold", String(id)]);
    expect([twice.code, twice.stderr]).toEqual([1, `tranche: Job ${id} is already held\n`]);
    const release = await cli(["release", String(id)]);
    expect(release.stdout).toBe(`Job #${id} is released: back in the queue, in its place by its budget and submit time.\n`);
    expect((await w.db.prisma.job.findUniqueOrThrow({ where: { id } })).state).toBe("PENDING");
    const releasedTwice = await cli(["release", String(id)]);
    expect([releasedTwice.code, releasedTwice.stderr]).toEqual([1, `tranche: Job ${id} is not held\n`]);
  });

  it("holds and releases a whole array with --array, and says so when one of its tasks is held alone", async () => {
    const r = await cli(["--json", ...base, "--array", "0-2", "--", "true"]);
    const id = (JSON.parse(r.stdout) as { job: { id: number } }).job.id;
    const one = await cli(["hold", String(id)]);
    expect(one.stdout).toBe(
      `Job #${id} is held: the scheduler skips it until it is released (tranche release ${id}).\n` +
        `It is task 0 of array #${id}: tranche hold --array ${id} holds them all.\n`,
    );
    const hold = await cli(["hold", "--array", String(id)]);
    expect([hold.stderr, hold.stdout]).toEqual([
      "",
      `Array #${id}: 2 waiting tasks held: the scheduler skips them until they are released (tranche release --array ${id}).\n`,
    ]);
    const states = await w.db.prisma.job.findMany({ where: { arrayJobId: id }, select: { state: true } });
    expect(states.map((t) => t.state)).toEqual(["HELD", "HELD", "HELD"]);
    const release = await cli(["release", "--array", String(id)]);
    expect(release.stdout).toBe(
      `Array #${id}: 3 held tasks released: back in the queue, in their place by their budget and submit time.\n`,
    );
    const twice = await cli(["release", "--array", String(id)]);
    expect([twice.code, twice.stderr]).toEqual([1, `tranche: Array ${id} has no held task to release (3 waiting)\n`]);
  });

  it("refuses bad input with the server's words and sends nothing", async () => {
    const before = await w.counts();
    const neg = await cli([...base, "--retries", "-1", "--", "true"]);
    expect(neg.code).not.toBe(0);
    expect(neg.stderr).toContain("retries must be between 0 and 10");
    const big = await cli([...base, "--array", "0-20000", "--", "true"]);
    expect(big.stderr).toContain("at most 10,000");
    const cyc = await cli(["depend", "1", "--after", "1"]);
    expect(cyc.code).not.toBe(0);
    expect(await w.counts()).toEqual(before);
  });

  it("refuses a duration option without its unit (Slurm's --time 90 is minutes, ours was seconds), naming it, and sends nothing", async () => {
    const before = await w.counts();
    const minRuntime = await cli([...base.slice(0, -1), "90", "--", "true"]);
    // A usage error: exit 2, as every mistake in the command line itself.
    expect([minRuntime.code, minRuntime.stdout, minRuntime.stderr]).toEqual([
      2,
      "",
      "tranche: --min-runtime 90 has no unit: write 90m for minutes, 90h for hours or 90s for seconds (e.g. --min-runtime 2h)\n",
    ]);
    for (const [flag, value] of [
      ["--max-runtime", "30"],
      ["--grace", "60"],
    ]) {
      const r = await cli([...base, flag!, value!, "--", "true"]);
      expect([r.code, r.stderr], flag).toEqual([2, expect.stringContaining(`tranche: ${flag} ${value} has no unit`)]);
    }
    const session = await cli(["session", "--cluster", "h100", "--budget", "lab/language/pretraining", "--min-runtime", "240"]);
    expect(session.stderr).toContain("tranche: --min-runtime 240 has no unit");
    const extend = await cli(["extend", "1", "--by", "30"]);
    expect(extend.stderr).toContain("tranche: --by 30 has no unit");
    expect(await w.counts()).toEqual(before);
    // 0 needs no unit (unallocated work), and a unit is read as before.
    const zero = await cli(["--json", ...base.slice(0, -1), "0", "--max-runtime", "90m", "--grace", "30s", "--", "true"]);
    expect(zero.code).toBe(0);
    const { job } = JSON.parse(zero.stdout) as { job: { minRuntime: number; maxRuntime: number; gracePeriod: number } };
    expect([job.minRuntime, job.maxRuntime, job.gracePeriod]).toEqual([0, 5400, 30]);
  });

  it("says what was mistyped in a few lines, not the whole help", async () => {
    const r = await cli([...base, "--gpu", "2", "--", "true"]);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      "",
      "error: unknown option '--gpu'\n(Did you mean --gpus?)\n(add --help to see the options)\n",
    ]);
  });

  it("answers Slurm's --time and -t with the options to use, and sends nothing", async () => {
    const before = await w.counts();
    const words =
      "tranche: tranche has no --time: the maximum runtime is --max-runtime (and the protected minimum --min-runtime)\n";
    for (const args of [
      [...base, "--time", "2h", "--", "true"],
      [...base, "-t", "90", "--", "true"],
      ["session", "--cluster", "h100", "--budget", "lab/language/pretraining", "--time", "4h"],
    ]) {
      const r = await cli(args);
      expect([r.code, r.stdout, r.stderr], args.join(" ")).toEqual([2, "", words]);
    }
    expect(await w.counts()).toEqual(before);
  });

  it("lists notifications and marks them read", async () => {
    const r = await cli(["notifications", "--mark-read"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/No notifications\.|unread/);
  });
});

describe("tranche update", () => {
  it("changes a waiting job in place, says what it now asks for, and the timeline says who changed what", async () => {
    const sub = await cli(["--json", ...base, "--max-runtime", "2h", "--", "true"]);
    const id = (JSON.parse(sub.stdout) as { job: { id: number } }).job.id;
    const before = await w.db.prisma.job.findUniqueOrThrow({ where: { id } });
    const r = await cli([
      "update",
      String(id),
      "--gpus",
      "2",
      "--max-runtime",
      "none",
      "--priority",
      "3",
      "--budget",
      "lab/language/evaluation",
    ]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).toBe(
      `Job #${id} (true) is changed and keeps its place in the queue: 2 GPUs on h100, charged to lab/language/evaluation, protected 1 h, no maximum runtime, priority 3.\n` +
        "Protected for 1 h after each start, then interruptible.\n" +
        `Follow it with: tranche explain ${id}\n`,
    );
    const after = await w.db.prisma.job.findUniqueOrThrow({ where: { id } });
    expect([after.gpus, after.maxRuntimeSec, after.priority, after.submittedAt]).toEqual([2, null, 3, before.submittedAt]);
    const explain = await cli(["explain", String(id)]);
    expect(explain.stdout).toMatch(
      /Changed while waiting +Ada Researcher changed GPUs 1 -> 2, max runtime 2 h -> none, priority 0 -> 3, budget lab\/language\/pretraining -> lab\/language\/evaluation\./,
    );
  });

  it("answers a retried update that changes nothing as done, exit 0, writing nothing", async () => {
    const sub = await cli(["--json", ...base, "--", "true"]);
    const id = (JSON.parse(sub.stdout) as { job: { id: number } }).job.id;
    expect((await cli(["update", String(id), "--gpus", "2", "--priority", "3"])).code).toBe(0);
    const before = await w.db.prisma.job.findUniqueOrThrow({ where: { id } });
    const again = await cli(["update", String(id), "--gpus", "2", "--priority", "3"]);
    expect([again.code, again.stderr, again.stdout]).toEqual([0, "", `Job ${id} already has these values; nothing changed.\n`]);
    const json = await cli(["--json", "update", String(id), "--gpus", "2"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ changed: false, job: { id, gpus: 2, priority: 3 } });
    const after = await w.db.prisma.job.findUniqueOrThrow({ where: { id } });
    expect([after.revision, after.updatedAt]).toEqual([before.revision, before.updatedAt]);
    expect(await w.db.prisma.jobEvent.count({ where: { jobId: id, kind: "UPDATED" } })).toBe(1);
  });

  it("changes every waiting task of an array with --array", async () => {
    const sub = await cli(["--json", ...base, "--array", "0-2", "--", "true"]);
    const id = (JSON.parse(sub.stdout) as { job: { id: number } }).job.id;
    const r = await cli(["update", "--array", String(id), "--name", "sweep"]);
    expect([r.stderr, r.stdout]).toEqual(["", `Array #${id}: 3 waiting tasks changed, each keeping its place in the queue.\n`]);
    const names = await w.db.prisma.job.findMany({ where: { arrayJobId: id }, select: { name: true } });
    expect(names.map((n) => n.name)).toEqual(["sweep", "sweep", "sweep"]);
    const again = await cli(["update", "--array", String(id), "--name", "sweep"]);
    expect([again.code, again.stderr, again.stdout]).toEqual([
      0,
      "",
      `The waiting tasks of array ${id} already have these values; nothing changed.\n`,
    ]);
  });

  it("refuses bad input before any request, and a job that does not wait with the server's words", async () => {
    const before = await w.counts();
    const cases: [string[], string][] = [
      [
        ["update", "1"],
        "tranche: nothing to change: give at least one of gpus, minRuntime, maxRuntime, priority, name, budget, nodes, excludeNodes\n",
      ],
      [["update", "1", "--gpus", "two"], "tranche: --gpus must be a whole number, got 'two'\n"],
      [
        ["update", "1", "--max-runtime", "90"],
        "tranche: --max-runtime 90 has no unit: write 90m for minutes, 90h for hours or 90s for seconds (e.g. --max-runtime 2h)\n",
      ],
      [["update", "1", "--priority", "5000"], "tranche: Priority must be between -1000 and 1000\n"],
    ];
    for (const [args, words] of cases) {
      const r = await cli(args);
      expect([args.join(" "), r.code, r.stdout, r.stderr]).toEqual([args.join(" "), 2, "", words]);
    }
    expect(await w.counts()).toEqual(before);
    const sub = await cli(["--json", ...base, "--", "true"]);
    const id = (JSON.parse(sub.stdout) as { job: { id: number } }).job.id;
    await w.db.prisma.job.update({ where: { id }, data: { state: "RUNNING" } });
    const running = await cli(["update", String(id), "--gpus", "2"]);
    expect([running.code, running.stderr]).toEqual([
      1,
      `tranche: Job ${id} is running: only a job that waits to start (pending or held) can be changed; to run it with other values, cancel it and submit it again\n`,
    ]);
  });
});

describe("tranche webhook", () => {
  it("prints the signing secret once when the webhook is set or given a new secret, and never when shown", async () => {
    const stored = () => w.db.prisma.webhookSecret.findUnique({ where: { userId: w.users.ada.id } });
    const set = await cli(["webhook", "https://hooks.example/t"]);
    expect(set.stderr).toBe("");
    const first = /Signing secret \(shown only now; keep it where your receiver can read it\): (whsec_\S+)/.exec(set.stdout)?.[1];
    expect(first).toBe((await stored())!.secret);
    const shown = await cli(["webhook"]);
    expect(shown.stdout).toBe(
      "Notifications are POSTed to https://hooks.example/t.\nThey are signed; tranche webhook --new-secret replaces the secret.\n",
    );
    const rotated = await cli(["webhook", "--new-secret"]);
    const second = /(whsec_\S+)/.exec(rotated.stdout)?.[1];
    expect([second, second === first]).toEqual([(await stored())!.secret, false]);
    // Two things at once is refused before anything is sent.
    const both = await cli(["webhook", "--off", "--new-secret"]);
    expect([both.code, both.stderr.trim()]).toEqual([
      2,
      "tranche: Give one of: an address, --new-secret, --off (or nothing, to show your webhook)",
    ]);
    expect((await stored())!.secret).toBe(second);
    const off = await cli(["webhook", "--off"]);
    expect(off.stdout).toBe("No webhook: notifications stay in your inbox.\n");
    expect(await stored()).toBeNull();
  });
});
