import { describe, expect, it } from "vitest";
import type { LogChunkView } from "@tranche/contracts";
import { endedHow, followedExitCode, logText, showsControls } from "../src/logs";

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

  // A job's output as a manager's terminal would receive it: a CR back to the line's start and a forged
  // node label, a window title (OSC 0), a screen clear and a clipboard write (OSC 52).
  const forged = "\r[b200-99] FORGED line\n\x1b]0;pwned\x07\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07\x1b[31mred\x1b[0m\tok\n";

  it("writes out a job's control characters on a terminal, after the node labels, so no line passes for another node's", async () => {
    const show = logText(nodesOf(["b200-4", "b200-5"]).nodesOfJob, { visible: true });
    const shown = (await show([chunk(1, "b200-4", forged), chunk(2, "b200-5", "step 1\r\x9b2J\n")])).join("");
    expect(shown).toBe(
      "[b200-4] ^M[b200-99] FORGED line\n" +
        "[b200-4] ^[]0;pwned^G^[[2J^[]52;c;cm0gLXJmIH4=^G^[[31mred^[[0m\tok\n" +
        "[b200-5] step 1^M<U+009B>2J\n",
    );
    // Nothing left that a terminal acts on but line breaks and tabs.
    // eslint-disable-next-line no-control-regex -- the control characters are what must not remain
    expect(shown).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });

  it("writes out control characters of a one-node job too, and keeps its bytes where asked for them", async () => {
    expect(await logText(nodesOf(["b200-4"]).nodesOfJob, { visible: true })([chunk(1, "b200-4", "a\x1b[2Jb\r\n")])).toEqual([
      "a^[[2Jb^M\n",
    ]);
    expect(await logText(nodesOf(["b200-4"]).nodesOfJob, { visible: false })([chunk(1, "b200-4", forged)])).toEqual([forged]);
  });

  it("writes control characters out on a terminal only, and not with --raw", () => {
    expect(showsControls(false, true)).toBe(true);
    expect(showsControls(true, true)).toBe(false);
    expect(showsControls(false, false)).toBe(false);
    expect(showsControls(false, undefined)).toBe(false);
  });

  it("exits with a followed job's outcome: 0 when it completed, its exit code, else 1", () => {
    expect(followedExitCode({ state: "COMPLETED", exitCode: 0 })).toBe(0);
    expect(followedExitCode({ state: "FAILED", exitCode: 3 })).toBe(3);
    expect(followedExitCode({ state: "KILLED", exitCode: 143 })).toBe(143);
    expect(followedExitCode({ state: "CANCELLED", exitCode: null })).toBe(1);
    expect(followedExitCode({ state: "LOST", exitCode: null })).toBe(1);
    // A code no exit status can carry is still a failure.
    expect(followedExitCode({ state: "FAILED", exitCode: 256 })).toBe(1);
    expect(followedExitCode({ state: "FAILED", exitCode: 0 })).toBe(1);
  });
});

describe("how a followed job ended (tranche logs --follow)", () => {
  it("says a job the scheduler preempted and did not requeue was preempted, not that it failed", () => {
    expect(endedHow({ id: 7, state: "PREEMPTED", exitCode: 143 }, false)).toBe(
      "job 7 was preempted by the scheduler and not requeued (exit code 143)",
    );
    expect(endedHow({ id: 7, state: "FAILED", exitCode: 1 }, false)).toBe(
      "job 7 failed (exit code 1); its error output: tranche logs --stderr 7",
    );
    expect(endedHow({ id: 7, state: "COMPLETED", exitCode: 0 }, false)).toBeNull();
  });
});
