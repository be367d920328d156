// `tranche queue <cluster> --budget PATH` and GET /api/v1/queue/{cluster}?budget=PATH: only the jobs of
// that budget and the budgets below it (as squeue -A), against the REST handler and a real Postgres.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@tranche/domain";
import { callRest, goodJob } from "./fixtures";
import { startCliStack, type CliStack } from "./cli-stack";

type Who = "ada" | "maya" | "victor" | "omar" | "admin" | "other";
const EVERYONE: Who[] = ["ada", "maya", "victor", "omar", "admin", "other"];
let stack: CliStack<"ada">;
const tokens: Partial<Record<Who, string>> = {};
let language = 0;
let video = 0;

beforeAll(async () => {
  stack = await startCliStack("api_cli_queue_budget", { tmpPrefix: "tranche-queue-budget-" });
  for (const who of EVERYONE) tokens[who] = (await createApiToken(stack.w.db.prisma, stack.w.users[who], { name: "t" })).token;
  const submit = async (who: Who, budget: string) => {
    const r = await callRest(stack.w, "POST", "/jobs", {
      token: tokens[who]!,
      body: { ...goodJob, gpus: 1, budget, name: `${who}-job` },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.job.id as number;
  };
  language = await submit("ada", "lab/language/pretraining");
  video = await submit("other", "lab/vision/video");
});
afterAll(() => stack?.stop());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test assertions walk arbitrary JSON
const ids = (body: Record<string, any>): number[] => (body.pending as { id: number }[]).map((p) => p.id);

describe("the queue of one budget and its subtree", () => {
  it("REST: a group's path takes the jobs of its budgets, and the counts are theirs", async () => {
    const r = await callRest(stack.w, "GET", "/queue/h100?budget=lab/vision", { token: tokens.ada! });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(ids(r.body)).toEqual([video]);
    expect([r.body.budget, r.body.counts.pending]).toEqual(["lab/vision", 1]);
    const leaf = await callRest(stack.w, "GET", "/queue/h100?budget=lab/language/pretraining", { token: tokens.ada! });
    expect(ids(leaf.body)).toEqual([language]);
    const all = await callRest(stack.w, "GET", "/queue/h100", { token: tokens.ada! });
    expect(ids(all.body)).toEqual(expect.arrayContaining([language, video]));
    expect(all.body.budget).toBeNull();
  });

  it("REST: every signed-in role reads the same narrowed queue (the queue is every member's to read); no token is 401", async () => {
    for (const who of EVERYONE) {
      const r = await callRest(stack.w, "GET", "/queue/h100?budget=lab/vision", { token: tokens[who]! });
      expect([who, r.status, ids(r.body)]).toEqual([who, 200, [video]]);
    }
    const anon = await callRest(stack.w, "GET", "/queue/h100?budget=lab/vision", {});
    expect(anon.status).toBe(401);
  });

  it("REST: a path that names no budget is 404 saying so, one that is no path is 400 naming the parameter", async () => {
    const none = await callRest(stack.w, "GET", "/queue/h100?budget=lab/nope", { token: tokens.ada! });
    expect([none.status, none.body.error.message]).toEqual([404, "Unknown budget 'lab/nope' (tranche budgets lists them)"]);
    const bad = await callRest(stack.w, "GET", "/queue/h100?budget=Lab%20Vision!", { token: tokens.ada! });
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues[0].path).toBe("budget");
  });

  it("tranche queue --budget lists only them and says so", async () => {
    const r = await stack.cli(["queue", "h100", "--budget", "lab/vision"]);
    expect(r.stderr).toBe("");
    expect(r.stdout.split("\n")[0]).toMatch(
      /^h100, budget lab\/vision and below: 0 running \(0\/\d+ GPUs\), 1 pending \(1 GPUs\);/,
    );
    expect(r.stdout).toMatch(new RegExp(`\\n(\\d+|not in line) +${video} +lab/vision/video `));
    expect(r.stdout).not.toMatch(new RegExp(`\\n\\S+ +${language} `));
    const none = await stack.cli(["queue", "h100", "--budget", "lab/nope"]);
    expect([none.code, none.stderr]).toEqual([1, "tranche: Unknown budget 'lab/nope' (tranche budgets lists them)\n"]);
  });
});
