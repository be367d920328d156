import { describe, expect, it } from "vitest";
import type { JobView } from "@tranche/contracts";
import { durationText, editChange, editStateOf } from "../app/(app)/jobs/[id]/edit-input";

const job = {
  id: 7,
  name: "pretrain",
  budget: "lab/language/pretraining",
  gpus: 8,
  minRuntime: 5400,
  maxRuntime: 7200,
  priority: 0,
} as JobView;

describe("the job page's Edit form", () => {
  it("opens with the job's values, durations as the submit form takes them", () => {
    expect(editStateOf(job)).toEqual({
      gpus: "8",
      minRuntime: "1h30m",
      maxRuntime: "2h",
      priority: "0",
      name: "pretrain",
      budget: "lab/language/pretraining",
    });
    expect(editStateOf({ ...job, minRuntime: 0, maxRuntime: null })).toMatchObject({ minRuntime: "0", maxRuntime: "" });
    expect([durationText(90), durationText(86_400 + 61)]).toEqual(["1m30s", "1d1m1s"]);
  });

  it("sends only what changed; an emptied maximum runtime removes the limit", () => {
    const f = editStateOf(job);
    expect(editChange(job, { ...f, gpus: "4", maxRuntime: "" })).toEqual({ input: { gpus: 4, maxRuntime: null }, errors: {} });
    expect(editChange(job, { ...f, minRuntime: "90m", budget: "lab/language/evaluation" }).input).toEqual({
      budget: "lab/language/evaluation",
    });
    expect(editChange(job, f).errors).toEqual({ form: "Nothing was changed: edit a field, or close the form." });
  });

  it("refuses in the submit form's words, before anything is sent", () => {
    const f = editStateOf(job);
    expect(editChange(job, { ...f, gpus: "0" }).errors).toEqual({ gpus: "The number of GPUs must be at least 1" });
    expect(editChange(job, { ...f, maxRuntime: "30" }).errors.maxRuntime).toMatch(/^Maximum runtime 30 has no unit/);
    expect(editChange(job, { ...f, maxRuntime: "1h" }).errors).toEqual({
      maxRuntime: "The maximum runtime (1 h) is shorter than the minimum (1 h 30 min)",
    });
    expect(editChange(job, { ...f, name: " " }).input).toBeUndefined();
  });
});
