import { describe, expect, it } from "vitest";
import {
  LIMITS,
  createUserInput,
  hasControlChars,
  personName,
  personNameProblem,
  startSessionInput,
  submitJobInput,
  updateUserInput,
} from "../src";

const CONTROL = "name must not contain control characters (such as ESC, BEL, tab or a line break)";

describe("a person's display name", () => {
  it("is trimmed and takes 1 to 100 characters, counted as characters", () => {
    expect(personName().parse("  Ada Researcher ")).toBe("Ada Researcher");
    expect(personName().parse("x")).toBe("x");
    expect(personName().parse("é".repeat(100))).toBe("é".repeat(100));
    expect(personName().parse(` ${"n".repeat(100)} `)).toBe("n".repeat(100));
    expect(LIMITS.personNameChars).toBe(100);
  });

  it("refuses an empty name, 101 characters and control characters, in one sentence naming the field", () => {
    expect(personNameProblem("")).toBe("name is required");
    expect(personNameProblem("   ")).toBe("name is required");
    expect(personNameProblem(undefined)).toBe("name is required");
    expect(personNameProblem(42)).toBe("name must be a string");
    expect(personNameProblem("n".repeat(101))).toBe("name is longer than 100 characters");
    expect(personNameProblem("N".repeat(2_000_000))).toBe("name is longer than 100 characters");
    for (const bad of [
      "Ada\u001b[31mRed",
      "a\u0007b",
      "tab\there",
      "two\nlines",
      "cr\rx",
      "del\u007f",
      "c1\u009bx",
      "nel\u0085x",
    ])
      expect(personNameProblem(bad), JSON.stringify(bad)).toBe(CONTROL);
    expect(personNameProblem("nul\u0000")).toBe("name must not contain NUL characters (\\u0000)");
    expect(personNameProblem("x\u001b", "--name")).toBe(
      "--name must not contain control characters (such as ESC, BEL, tab or a line break)",
    );
    expect(personNameProblem("Zoë O'Brien-Łukasz 山田")).toBeNull();
    // Read in everyone's queue: '\u202Enimda' shows as "admin".
    for (const bad of ["\u202Enimda", "Sam \u2066Lee\u2069", "a\u202Ab", "a\u202Cb", "a\u2069"])
      expect(personNameProblem(bad), JSON.stringify(bad)).toBe(
        "name must not contain characters that reorder the text around them (U+202A to U+202E, U+2066 to U+2069)",
      );
    expect(personNameProblem("שלום Ada مرحبا")).toBeNull(); // right-to-left scripts themselves are fine
  });

  it("is the rule of the admin inputs: create and change", () => {
    const create = (name: string) => createUserInput.safeParse({ email: "a@lab.example", name });
    expect(create("n".repeat(101)).error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["name", "name is longer than 100 characters"],
    ]);
    expect(create("Ada\u001b]0;x\u0007").error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([["name", CONTROL]]);
    expect(create(" Ada ").data?.name).toBe("Ada");
    expect(createUserInput.safeParse({ email: "a@lab.example" }).error?.issues.map((i) => i.message)).toEqual([
      "name is required",
    ]);
    const change = (name: string) => updateUserInput.safeParse({ name });
    expect(change("n".repeat(101)).error?.issues.map((i) => i.message)).toEqual(["name is longer than 100 characters"]);
    expect(change("\u001b[2J").error?.issues.map((i) => i.message)).toEqual([CONTROL]);
    expect(change("n".repeat(100)).success).toBe(true);
  });
});

describe("control characters", () => {
  it("are C0, DEL and C1; printable text, spaces and other scripts are not", () => {
    for (const c of ["\u0000", "\u0007", "\t", "\n", "\u001b", "\u001f", "\u007f", "\u0080", "\u009b", "\u009f"])
      expect(hasControlChars(`a${c}b`), JSON.stringify(c)).toBe(true);
    for (const s of ["plain", " ", "\u00a0", "é", "→", "山田", "🙂"]) expect(hasControlChars(s), s).toBe(false);
  });

  it("are refused in a job's name and a session's, naming the field; the command keeps its line breaks", () => {
    const base = { cluster: "h100", budget: "lab/a/b", gpus: 8, minRuntime: "2h", command: "python x.py" };
    const job = (more: object) => submitJobInput.safeParse({ ...base, ...more });
    expect(job({ name: "\u001b]0;pwned\u0007" }).error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["name", CONTROL],
    ]);
    expect(job({ name: "evil\rHELD" }).error?.issues.map((i) => i.message)).toEqual([CONTROL]);
    expect(job({ name: "  train-7b " }).data?.name).toBe("train-7b");
    expect(job({ command: "echo a\necho b" }).success).toBe(true);
    const session = startSessionInput.safeParse({ cluster: "h100", budget: "lab/a/b", minRuntime: "1h", name: "x\u001b[2J" });
    expect(session.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([["name", CONTROL]]);
  });
});
