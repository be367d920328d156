import { describe, expect, it } from "vitest";
import { hasLoneSurrogate, personNameProblem, text } from "../src";

describe("half of a character", () => {
  it("is found alone at either end or in the middle, high or low", () => {
    for (const s of ["\ud800", "a\ud83d", "\ude00b", "a\udc00\ud800b", "\ud83d\ud83d\ude00\ud83d"])
      expect(hasLoneSurrogate(s)).toBe(true);
  });

  it("a whole character of two halves (an emoji, a CJK extension letter) is text like any other", () => {
    for (const s of ["", "plain", "run \ud83d\ude80 fast", "\ud840\udc0b", "é中文"]) expect(hasLoneSurrogate(s)).toBe(false);
    expect(text("name").safeParse("train \ud83d\ude80").success).toBe(true);
    expect(personNameProblem("Ada \ud83d\ude00")).toBeNull();
  });

  it("is refused by text() and a person's name, naming the field", () => {
    const r = text("command").safeParse("echo \udc00");
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toMatch(/^command must be valid Unicode text/);
    expect(personNameProblem("Ada \ud800")).toMatch(/^name must be valid Unicode text/);
  });
});
