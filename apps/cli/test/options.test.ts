import { describe, expect, it } from "vitest";
import { CliError } from "../src/client";
import { countOption } from "../src/options";

describe("countOption", () => {
  it("takes a positive whole number", () => {
    expect(countOption("--limit", "25")).toBe(25);
    expect(countOption("--tail", "1000", 1000)).toBe(1000);
  });

  it("refuses zero, negatives, fractions and words, naming the option", () => {
    for (const bad of ["0", "-3", "2.5", "abc", "", "1e3", " 5"])
      expect(() => countOption("--limit", bad), bad).toThrow(
        new CliError(`--limit must be a positive whole number, got '${bad}'`),
      );
    expect(() => countOption("--tail", "1001", 1000)).toThrow("--tail must be a whole number from 1 to 1,000, got '1001'");
    expect(() => countOption("--limit", "0")).toThrow(CliError);
  });
});
