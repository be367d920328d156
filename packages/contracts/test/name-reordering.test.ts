import { describe, expect, it } from "vitest";
import { startSessionInput, submitJobInput } from "../src";

// A job's name is listed to everyone (the queue, the nodes page, `tranche queue`): one holding a
// right-to-left override made the rest of it read backwards ("eval \u202Eredro" showed as "eval order").
const job = { cluster: "h100", budget: "lab/a", gpus: 1, minRuntime: 0, command: "python x.py" };
const session = { cluster: "h100", budget: "lab/a", gpus: 1, minRuntime: 0 };
const REFUSED = "name must not contain characters that reorder the text around them (U+202A to U+202E, U+2066 to U+2069)";

describe("job and session names", () => {
  it("refuse the characters that reorder the text around them, naming the field", () => {
    for (const c of ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"])
      for (const [schema, input] of [
        [submitJobInput, job],
        [startSessionInput, session],
      ] as const) {
        const r = schema.safeParse({ ...input, name: `eval ${c}redro` });
        expect(r.success, `U+${c.charCodeAt(0).toString(16)}`).toBe(false);
        expect(r.error!.issues.map((i) => [i.path.join("."), i.message])).toEqual([["name", REFUSED]]);
      }
  });

  it("keep right-to-left letters and everything else people write", () => {
    for (const name of ["אימון-1", "تدريب نموذج", "Zoë 山田 → v2", "a\u200db"])
      expect(submitJobInput.parse({ ...job, name }).name).toBe(name);
  });
});
