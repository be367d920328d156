import { describe, expect, it } from "vitest";
import type { LogChunkView } from "@tranche/contracts";
import { logText } from "../src/logs";

const chunk = (cursor: number, node: string | null, text: string): LogChunkView => ({
  cursor: String(cursor),
  at: "2026-12-06T18:00:00.000Z",
  stream: "stdout",
  node,
  text,
});

/** The job's nodes as the server has them, counting how often they are asked for. */
function nodesOf(...lists: string[][]) {
  const asked = { count: 0 };
  return { asked, nodesOfJob: async () => lists[Math.min(asked.count++, lists.length - 1)]! };
}

describe("tranche logs", () => {
  it("labels each line with its node when the job runs on several nodes, from its first line", async () => {
    const { asked, nodesOfJob } = nodesOf(["h100-29", "h100-30"]);
    const show = logText(nodesOfJob);
    // The first page holds only the first node's output: the job's runs say there are two.
    expect((await show([chunk(1, "h100-29", "step 44\nstep 45\n")])).join("")).toBe("[h100-29] step 44\n[h100-29] step 45\n");
    expect((await show([chunk(2, "h100-30", "step 44\n"), chunk(3, "h100-29", "step 46\n")])).join("")).toBe(
      "[h100-30] step 44\n[h100-29] step 46\n",
    );
    expect(asked.count).toBe(1);
  });

  it("prints a one-node job's lines as they are, asking for its nodes once", async () => {
    const { asked, nodesOfJob } = nodesOf(["h100-29"]);
    const show = logText(nodesOfJob);
    expect(await show([chunk(1, "h100-29", "step 44\n")])).toEqual(["step 44\n"]);
    expect(await show([chunk(2, "h100-29", "step 45\n"), chunk(3, null, "old\n")])).toEqual(["step 45\n", "old\n"]);
    expect(await show([])).toEqual([]);
    expect(asked.count).toBe(1);
  });

  it("begins labelling when a followed job's output comes from a second node, asking again for its nodes", async () => {
    // Followed while pending, then run on one node, then requeued onto another.
    const { asked, nodesOfJob } = nodesOf(["n1"], ["n1", "n2"]);
    const show = logText(nodesOfJob);
    expect(await show([chunk(1, "n1", "epoch 1\nepoch ")])).toEqual(["epoch 1\nepoch "]);
    expect(await show([chunk(2, "n1", "2\n"), chunk(3, "n2", "resumed at epoch 2\n")])).toEqual([
      "2\n",
      "[n2] resumed at epoch 2\n",
    ]);
    expect(await show([chunk(4, "n1", "epoch 3\n")])).toEqual(["[n1] epoch 3\n"]);
    expect(asked.count).toBe(2);
  });
});
