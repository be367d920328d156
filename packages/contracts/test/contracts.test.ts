import { describe, expect, it } from "vitest";
import { formatDuration as coreFormatDuration } from "@tranche/scheduler-core/format";
import {
  explainContract,
  formatDuration,
  formatPpm,
  issueEnrollmentTokenInput,
  parseDuration,
  parsePercentToPpm,
  submitJobInput,
} from "../src";
import { formatDuration as pageFormatDuration } from "../src/format";

describe("durations", () => {
  it("reads seconds and short duration strings the same everywhere", () => {
    expect(parseDuration(90)).toBe(90);
    expect(parseDuration("90")).toBe(90);
    expect(parseDuration("90s")).toBe(90);
    expect(parseDuration("15m")).toBe(900);
    expect(parseDuration("2h")).toBe(7200);
    expect(parseDuration("1h30m")).toBe(5400);
    expect(parseDuration("1d")).toBe(86_400);
    expect(parseDuration("soon")).toBeNull();
    expect(parseDuration("")).toBeNull();
    expect(parseDuration("2x")).toBeNull();
  });
  it("says a negative duration is negative, not that it is no duration (a token's expiresIn: -1h)", () => {
    const issues = (v: unknown) => issueEnrollmentTokenInput.safeParse({ expiresIn: v }).error?.issues.map((i) => i.message);
    expect(issues("-1h")).toEqual(["expiresIn must not be negative, got -1h"]);
    expect(issues(" -1h30m ")).toEqual(["expiresIn must not be negative, got -1h30m"]);
    expect(issues(-3600)).toEqual(["expiresIn must not be negative, got -3600"]);
    expect(issues("-soon")).toEqual([
      'expiresIn "-soon" is not a duration: use whole seconds (5400) or units s, m, h, d (5400s, 90m, 1h30m)',
    ]);
    expect(issues("0s")).toEqual(["expiresIn must be at least 1 minute"]);
  });
});

describe("the submit schema", () => {
  const base = { cluster: "h100", budget: "lab/a/b", gpus: 8, minRuntime: "2h", command: "python x.py" };
  it("fills defaults and converts durations to seconds", () => {
    const r = submitJobInput.parse(base);
    expect(r).toMatchObject({ minRuntime: 7200, resumable: false, priority: 0, env: {} });
  });
  it("gives specific messages", () => {
    const msg = (patch: object) => submitJobInput.safeParse({ ...base, ...patch }).error?.issues[0]?.message;
    expect(msg({ gpus: 0 })).toBe("The number of GPUs must be at least 1");
    expect(msg({ gpus: 1.5 })).toBe("The number of GPUs must be a whole number");
    expect(msg({ minRuntime: -1 })).toBe("Minimum runtime must not be negative, got -1");
    expect(msg({ minRuntime: "later" })).toBe(
      'Minimum runtime "later" is not a duration: use whole seconds (5400) or units s, m, h, d (5400s, 90m, 1h30m)',
    );
    expect(msg({ command: "" })).toBe("command is required");
    expect(msg({ env: { "9X": "1" } })).toMatch(/environment variable names .*'9X'/);
  });
});

describe("allocations in ppm", () => {
  it("parse and print percentages exactly", () => {
    expect(parsePercentToPpm("12.5")).toBe(125_000);
    expect(parsePercentToPpm("33.3333%")).toBe(333_333);
    expect(parsePercentToPpm("100")).toBe(1_000_000);
    expect(parsePercentToPpm("1.23456")).toBeNull();
    expect(parsePercentToPpm("-1")).toBeNull();
    expect(formatPpm(125_000)).toBe("12.5%");
    expect(formatPpm(1_000_001)).toBe("100.0001%");
  });
});

describe("the contract in plain words", () => {
  it("explains protection, the debug lane and unallocated work", () => {
    expect(explainContract({ gpus: 8, minRuntime: 7200, resumable: true }).headline).toBe(
      "Protected for 2 h after each start, then interruptible.",
    );
    expect(explainContract({ gpus: 8, minRuntime: 7200, resumable: true }).sentences.join(" ")).toContain(
      "requeued with its original submit time",
    );
    expect(explainContract({ gpus: 2, minRuntime: 300, maxRuntime: 600, resumable: false }).lane).toBe("DEBUG");
    expect(explainContract({ gpus: 16, minRuntime: 300, maxRuntime: 600, resumable: false }).lane).toBe("ALLOCATED");
    expect(explainContract({ gpus: 1, minRuntime: 0, resumable: false }).headline).toMatch(/Unallocated/);
    expect(explainContract({ gpus: 1, minRuntime: 60, resumable: false }).sentences.join(" ")).toContain("is not requeued");
  });
});

describe("durations in words", () => {
  it("are the core's words on every page and in the CLI, as in the reason sentences", () => {
    expect(formatDuration).toBe(coreFormatDuration);
    expect(pageFormatDuration).toBe(coreFormatDuration);
    expect(formatDuration(3959)).toBe("1 h 5 min");
  });

  it("says a contract's own values exactly, never rounded", () => {
    const w = explainContract({ gpus: 8, minRuntime: 5401, maxRuntime: 86_400 + 61, resumable: true });
    expect(w.headline).toBe("Protected for 1 h 30 min 1 s after each start, then interruptible.");
    expect(w.sentences).toContain("Killed after 1 d 1 min 1 s of running.");
  });
});
