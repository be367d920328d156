import { describe, expect, it } from "vitest";
import { NEW_JOB_FORM, serverFieldErrors, validate, type FormState } from "../app/(app)/submit/submit-input";

const form = (over: Partial<FormState>): FormState => ({
  ...NEW_JOB_FORM,
  cluster: "h100",
  budget: "lab/nlp",
  command: "python train.py",
  ...over,
});

describe("the submit form says every field's problem from one submit", () => {
  it("a bare duration, an env line, a node range and the schema's issues, all at once, and submits nothing", () => {
    const r = validate(
      form({ gpus: "0", minRuntime: "90", env: "oops", nodes: "gpu-[05-03]", command: "", retries: "11", after: "abc" }),
    );
    expect(r.input).toBeUndefined();
    expect(Object.keys(r.errors).sort()).toEqual(["after", "command", "env", "gpus", "minRuntime", "nodes", "retries"]);
    expect(r.errors.minRuntime).toMatch(/^Minimum runtime 90 has no unit/);
    expect(r.errors.env).toBe("env line 1 'oops' is not KEY=VALUE");
    expect(r.errors.nodes).toBe("Run only on nodes: range 05-03 runs backwards");
  });

  it("the debug lane's missing maximum beside the other problems", () => {
    const r = validate(form({ debug: true, maxRuntime: "", gpus: "x" }));
    expect(Object.keys(r.errors).sort()).toEqual(["gpus", "maxRuntime"]);
  });

  it("puts the server's issues beside their fields, and one naming no field of the form above it", () => {
    expect(
      serverFieldErrors([
        { path: "gpus", message: "GPUs must be at least 1" },
        { path: "env.FOO", message: "env value too long" },
        { path: "gpus", message: "a second issue" },
        { path: "requeue", message: "requeue is not a yes or no" },
        { path: "", message: "something about the whole job" },
      ]),
    ).toEqual({
      gpus: "GPUs must be at least 1",
      env: "env value too long",
      form: "requeue is not a yes or no; something about the whole job",
    });
  });
});
