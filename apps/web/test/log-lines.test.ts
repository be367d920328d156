import { describe, expect, it } from "vitest";
import { prefixNodeLines } from "../lib/log-lines";

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
