import { describe, expect, it } from "vitest";
import { fieldIssues, issuesSentence, startSessionInput, submitJobBatchInput, submitJobInput } from "../src";

// What REST and tRPC answer for bad input (fieldIssues, then one sentence), and what the CLI prints
// (the issues' own messages): both must name the field and say what is wrong with it.
const sentence = (r: { success: boolean; error?: Parameters<typeof fieldIssues>[0] }) =>
  r.success ? "accepted" : issuesSentence(fieldIssues(r.error!));
const base = { cluster: "h100", budget: "lab/a/b", gpus: 1, minRuntime: "2h", command: "python x.py" };

describe("a missing field", () => {
  it("is required, not of the wrong type: every field of a submission, durations with an example", () => {
    expect(sentence(submitJobInput.safeParse({ cluster: "c1", gpus: 1 }))).toBe(
      "budget is required; Minimum runtime is required (e.g. 2h or 0); command is required",
    );
    expect(sentence(submitJobInput.safeParse({}))).toBe(
      "cluster is required; budget is required; The number of GPUs is required; Minimum runtime is required (e.g. 2h or 0); command is required",
    );
    const cli = submitJobInput.safeParse({ cluster: "c1", budget: "b", command: "x" }).error!.issues.map((i) => i.message);
    expect(cli).toEqual(["The number of GPUs is required", "Minimum runtime is required (e.g. 2h or 0)"]);
  });

  it("names the item of a batch, and other schemas say the same (a session's minRuntime)", () => {
    expect(sentence(submitJobBatchInput.safeParse({ jobs: [base, { ...base, command: undefined }] }))).toBe(
      "jobs.1.command: command is required",
    );
    expect(sentence(submitJobBatchInput.safeParse({ jobs: [base, { ...base, gpus: 0 }] }))).toBe(
      "jobs.1.gpus: The number of GPUs must be at least 1",
    );
    expect(sentence(submitJobBatchInput.safeParse({}))).toBe("jobs is required");
    expect(sentence(startSessionInput.safeParse({ cluster: "c1", budget: "b", gpus: 1 }))).toBe(
      "Minimum runtime is required (e.g. 2h)",
    );
  });

  it("a value that is there but of the wrong type still says so, and a duration names what it got", () => {
    expect(sentence(submitJobInput.safeParse({ ...base, budget: 3, gpus: "8" }))).toBe(
      "budget must be a string; The number of GPUs must be a number",
    );
    expect(sentence(submitJobInput.safeParse({ ...base, minRuntime: null }))).toBe(
      'Minimum runtime must be whole seconds or a duration such as "2h", got null',
    );
    expect(sentence(submitJobInput.safeParse({ ...base, minRuntime: true }))).toBe(
      'Minimum runtime must be whole seconds or a duration such as "2h", got true',
    );
    expect(sentence(submitJobInput.safeParse({ ...base, maxRuntime: [] }))).toBe(
      'Maximum runtime must be whole seconds or a duration such as "2h", got a list',
    );
    // Optional fields stay optional; null is "no limit" where it was before.
    expect(sentence(submitJobInput.safeParse({ ...base, maxRuntime: null }))).toBe("accepted");
  });
});
