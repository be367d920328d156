import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { askYesNo } from "../src/confirm";

/** askYesNo with `typed` as what the person types, and what it wrote to ask. */
async function ask(typed: string | null): Promise<{ yes: boolean; asked: string }> {
  const input = new PassThrough();
  const output = new PassThrough();
  let asked = "";
  output.on("data", (c: Buffer) => (asked += c.toString()));
  const answer = askYesNo("Cancel 27 jobs?", input, output);
  if (typed === null) input.end();
  else input.write(typed);
  return { yes: await answer, asked };
}

describe("askYesNo", () => {
  it("asks with the question and says yes only for y or yes", async () => {
    expect(await ask("y\n")).toEqual({ yes: true, asked: "Cancel 27 jobs? [y/N] " });
    expect((await ask("YES\n")).yes).toBe(true);
    for (const typed of ["\n", "n\n", "no\n", "yep\n", "sure\n"]) expect((await ask(typed)).yes, typed).toBe(false);
  });

  it("takes input that ends before an answer as a no", async () => {
    expect((await ask(null)).yes).toBe(false);
  });
});
