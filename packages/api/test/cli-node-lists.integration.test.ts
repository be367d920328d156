// `tranche submit --nodelist/--exclude` and `tranche update --nodelist/--exclude`: the real CLI process
// against the REST handler served over HTTP and a real Postgres.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCliStack, type CliStack } from "./cli-stack";

let stack: CliStack<"ada">;

beforeAll(async () => {
  stack = await startCliStack("api_cli_node_lists");
});
afterAll(() => stack?.stop());

const base = ["submit", "--cluster", "h100", "--budget", "lab/language/pretraining", "--gpus", "1", "--min-runtime", "1h"];
const row = (id: number) => stack.w.db.prisma.job.findUniqueOrThrow({ where: { id } });

describe("tranche: node lists", () => {
  it("submits with Slurm's ranges and refuses unknown nodes and unreadable ranges", async () => {
    const sub = await stack.cli(["--json", ...base, "--nodelist", "h100-[3-4]", "--exclude", "h100-5", "--", "true"]);
    expect(sub.stderr).toBe("");
    const id = (JSON.parse(sub.stdout) as { job: { id: number } }).job.id;
    expect([(await row(id)).nodeList, (await row(id)).excludeNodes]).toEqual([["h100-3", "h100-4"], ["h100-5"]]);
    // h100's nodes are h100-0 .. h100-31: a range keeps its width, so h100-03 is not one of them.
    const bad = await stack.cli([...base, "--nodelist", "h100-[03-04]", "--", "true"]);
    expect([bad.code, bad.stderr]).toEqual([1, "tranche: cluster 'h100' has no node 'h100-03'\n"]);
    const unread = await stack.cli([...base, "--exclude", "h100-[9-7]", "--", "true"]);
    expect([unread.code, unread.stderr]).toEqual([2, "tranche: --exclude: range 9-7 runs backwards\n"]);
  });

  it("update sets and removes a waiting job's lists", async () => {
    const sub = await stack.cli(["--json", ...base, "--nodelist", "h100-3", "--", "true"]);
    const id = (JSON.parse(sub.stdout) as { job: { id: number } }).job.id;
    const upd = await stack.cli(["update", String(id), "--nodelist", "none", "--exclude", "h100-[1-2]"]);
    expect(upd.stderr).toBe("");
    expect([(await row(id)).nodeList, (await row(id)).excludeNodes]).toEqual([[], ["h100-1", "h100-2"]]);
    const explain = await stack.cli(["explain", String(id)]);
    expect(explain.stdout).toContain("\nNodes: Never runs on h100-1 or h100-2.\n");
  });
});
