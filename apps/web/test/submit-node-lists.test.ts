import { describe, expect, it } from "vitest";
import { NEW_JOB_FORM, validate, type FormState } from "../app/(app)/submit/submit-input";

const form = (over: Partial<FormState>): FormState => ({
  ...NEW_JOB_FORM,
  cluster: "h100",
  budget: "lab/nlp",
  command: "python train.py",
  ...over,
});

describe("the submit form's node lists", () => {
  it("reads Slurm's ranges into the submission, and leaves empty boxes out", () => {
    const r = validate(form({ nodes: "gpu-[03-04], gpu-09", excludeNodes: "gpu-07" }));
    expect([r.input?.nodes, r.input?.excludeNodes, r.errors]).toEqual([["gpu-03", "gpu-04", "gpu-09"], ["gpu-07"], {}]);
    const plain = validate(form({}));
    expect(plain.input).not.toHaveProperty("nodes");
    expect(plain.input).not.toHaveProperty("excludeNodes");
  });

  it("refuses an unreadable range, or a node in both boxes, under the box, and submits nothing", () => {
    expect(validate(form({ nodes: "gpu-[05-03]" }))).toEqual({
      errors: { nodes: "Run only on nodes: range 05-03 runs backwards" },
    });
    expect(validate(form({ nodes: "gpu-1,gpu-2", excludeNodes: "gpu-2" }))).toEqual({
      errors: {
        excludeNodes: "node 'gpu-2' is both to run on and to avoid: a job cannot be kept off a node it must run on",
      },
    });
  });
});
