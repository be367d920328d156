import { describe, expect, it } from "vitest";
import { NEW_JOB_FORM, unitProblems, validate, type FormState } from "../app/(app)/submit/submit-input";

const form = (over: Partial<FormState>): FormState => ({
  ...NEW_JOB_FORM,
  cluster: "h100",
  budget: "lab/nlp",
  command: "python train.py",
  ...over,
});

describe("the submit form's durations", () => {
  it("refuses a number without its unit, in the CLI's words, and submits nothing", () => {
    expect(validate(form({ minRuntime: "90" }))).toEqual({
      errors: { minRuntime: "Minimum runtime 90 has no unit: write 90m for minutes, 90h for hours or 90s for seconds" },
    });
    const both = validate(form({ maxRuntime: " 120 ", gracePeriod: "1.5" }));
    expect(both.input).toBeUndefined();
    expect(both.errors).toEqual({
      maxRuntime: "Maximum runtime 120 has no unit: write 120m for minutes, 120h for hours or 120s for seconds",
      gracePeriod: "Grace period 1.5 has no unit: write 1.5m for minutes, 1.5h for hours or 1.5s for seconds",
    });
  });

  it("says a bare number needs a unit while it is typed, the words Submit would refuse it with", () => {
    const typed = form({ minRuntime: "90", maxRuntime: "2h" });
    expect(unitProblems(typed)).toEqual(validate(typed).errors);
    expect(unitProblems(form({ minRuntime: "90m", gracePeriod: "0" }))).toEqual({});
  });

  it("takes durations with their units, and 0 without one", () => {
    const ok = validate(form({ minRuntime: "90m", maxRuntime: "2h", gracePeriod: "30s" }));
    expect(ok.errors).toEqual({});
    expect(ok.input).toMatchObject({ minRuntime: "90m", maxRuntime: "2h", gracePeriod: "30s" });
    expect(validate(form({ minRuntime: "0" })).errors).toEqual({});
  });
});
