// A held job says who held it, when, and who may release it: the same words on the job (REST, tRPC,
// the job page), in `tranche explain`, `tranche ls` and `tranche queue`, from the hold until the
// worker's cycles, which carry the holder through the snapshot into the core's sentence.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@tranche/domain";
import { acquireOrRenewLease, applyCyclePlan, loadCycleInput } from "@tranche/domain/runtime";
import { runCycle } from "@tranche/scheduler-core";
import { callRest, goodJob } from "./fixtures";
import { startCliStack, type CliStack } from "./cli-stack";

type Who = "ada" | "omar" | "maya";
let stack: CliStack<Who>;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  stack = await startCliStack("api_held_reason", { users: ["ada", "omar", "maya"], tmpPrefix: "tranche-held-" });
  tokens.ada = (await createApiToken(stack.w.db.prisma, stack.w.users.ada, { name: "test" })).token;
});
afterAll(() => stack?.stop());

const submit = async (): Promise<number> => {
  const r = await callRest(stack.w, "POST", "/jobs", { token: tokens.ada!, body: { ...goodJob, gpus: 1, name: "sweep" } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.job.id as number;
};

const reasonOf = async (id: number) => {
  const r = await callRest(stack.w, "GET", `/jobs/${id}`, { token: tokens.ada! });
  expect(r.status).toBe(200);
  return r.body.job.reason as { code: string; sentence: string; details: Record<string, unknown> };
};

/** One worker cycle of the job's cluster at `later` seconds after now (the reasons it writes included). */
async function cycleAt(id: number, later: number): Promise<void> {
  const { prisma } = stack.w.db;
  const job = await prisma.job.findUniqueOrThrow({ where: { id } });
  expect(await acquireOrRenewLease(prisma, "test", 60)).toBe(true);
  const input = await loadCycleInput(prisma, job.clusterId, Math.floor(Date.now() / 1000) + later);
  await applyCyclePlan(prisma, input, runCycle(input.snapshot, input.policy, input.now), "test", { loadMs: 0, decideMs: 0 });
}

describe("a held job's reason", () => {
  it("names the operator who held it and says the owner cannot release it, everywhere it is shown", async () => {
    const id = await submit();
    const omar = stack.w.users.omar.name;
    expect((await stack.cli(["hold", String(id)], "omar")).stderr).toBe("");
    // At once, before any cycle: the hold's own reason, in the core's words.
    const first = await reasonOf(id);
    expect(first.code).toBe("HELD");
    expect(first.sentence).toBe(
      `Held by ${omar} (operator) just now, so it will not start until released; only an operator or an admin may release it: tranche release ${id}.`,
    );
    expect(first.details).toMatchObject({ heldByName: omar, heldByRole: "operator" });
    expect(typeof first.details.heldAt).toBe("string");

    await cycleAt(id, 25 * 60);
    const after = await reasonOf(id);
    const words = `Held by ${omar} (operator) 25 min ago, so it will not start until released; only an operator or an admin may release it: tranche release ${id} (budget lab/language/pretraining`;
    expect(after.sentence.startsWith(words), after.sentence).toBe(true);
    expect(after.details).toMatchObject({ heldByName: omar, heldByRole: "operator", position: null });

    const explain = await stack.cli(["explain", String(id)], "ada");
    expect(explain.stdout).toContain(`Why it waits: ${after.sentence}`);
    // The tables cut a long reason at the terminal's width: who and when come first.
    const head = `Held by ${omar} (operator) 25 min ago`;
    const lineOf = (out: string, start: RegExp) => out.split("\n").find((l) => start.test(l)) ?? out;
    expect(lineOf((await stack.cli(["ls"], "ada")).stdout, new RegExp(`^${id} +sweep +HELD `))).toContain(head);
    expect(lineOf((await stack.cli(["queue", "h100"], "ada")).stdout, new RegExp(`^held +${id} `))).toContain(head);
    const json = JSON.parse((await stack.cli(["--json", "ls"], "ada")).stdout) as { jobs: { id: number; reason: unknown }[] };
    expect(json.jobs.find((j) => j.id === id)?.reason).toEqual(after);
    // And the words are true: its owner may not release it.
    const refused = await stack.cli(["release", String(id)], "ada");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("only they, an operator or an admin may release it");
  });

  it("tells an owner who held their own job the command that releases it", async () => {
    const id = await submit();
    expect((await stack.cli(["hold", String(id)], "ada")).stderr).toBe("");
    await cycleAt(id, 2 * 3600);
    expect((await reasonOf(id)).sentence).toMatch(
      new RegExp(`^Held by its owner 2 h ago, so it will not start until released: tranche release ${id} releases it \\(budget `),
    );
  });

  it("names a manager of its budget as such", async () => {
    const id = await submit();
    expect((await stack.cli(["hold", String(id)], "maya")).stderr).toBe("");
    await cycleAt(id, 90);
    expect((await reasonOf(id)).sentence).toContain(
      `Held by ${stack.w.users.maya.name} (a manager of its budget) 1 min ago, so it will not start until released; only they, an operator or an admin may release it: tranche release ${id} (`,
    );
  });
});
