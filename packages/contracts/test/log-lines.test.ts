import { describe, expect, it } from "vitest";
import { nodeLineLabeller, prefixNodeLines } from "../src/log-lines";

const chunk = (id: string, node: string | null, text: string) => ({ id, stream: "stdout", node, text });

describe("prefixNodeLines", () => {
  it("prefixes every line of a multi-node job with its node, also across chunks that split a line", () => {
    const shown = prefixNodeLines([
      chunk("1", "b200-01", "step 1\nstep "),
      chunk("2", "b200-02", "step 1\n"),
      chunk("3", "b200-01", "2\n"),
    ]).map((c) => c.shown);
    expect(shown.join("")).toBe("[b200-01] step 1\n[b200-01] step [b200-02] step 1\n2\n");
    expect(shown).toEqual(["[b200-01] step 1\n[b200-01] step ", "[b200-02] step 1\n", "2\n"]);
  });

  it("leaves a one-node job's logs as they are", () => {
    expect(prefixNodeLines([chunk("1", "n1", "a\nb\n"), chunk("2", "n1", "c")]).map((c) => c.shown)).toEqual(["a\nb\n", "c"]);
  });
});

describe("nodeLineLabeller", () => {
  it("keeps each node's place in its line across pages, so labelling can begin part way through a log", () => {
    const label = nodeLineLabeller();
    expect(label(chunk("1", "n1", "step 1\nstep "), false)).toBe("step 1\nstep ");
    // From here on the log has two nodes: n1's line already begun gets no label in its middle.
    expect(label(chunk("2", "n1", "2\nstep 3\n"), true)).toBe("2\n[n1] step 3\n");
    expect(label(chunk("3", "n2", "step 3\n"), true)).toBe("[n2] step 3\n");
    expect(label(chunk("4", null, "old\n"), true)).toBe("old\n");
    expect(label(chunk("5", "n2", ""), true)).toBe("");
    expect(label(chunk("6", "n2", "step 4\n"), true)).toBe("[n2] step 4\n");
  });
});
