import { z } from "zod";
import { strictObject, typeError } from "./input";
import { submitJobInput } from "./job";
import { nodeListFields } from "./node-list";

const submit = submitJobInput.shape;

/** The fields of a waiting job that may be changed, in the order the words of a change name them. */
export const UPDATABLE_JOB_FIELDS = [
  "gpus",
  "minRuntime",
  "maxRuntime",
  "priority",
  "name",
  "budget",
  "nodes",
  "excludeNodes",
] as const;

/**
 * `PATCH /api/v1/jobs/{id}`, tRPC `job.update`, `tranche update`, the job page's Edit form: a waiting
 * job's contract changed in place, keeping its id and its place in its budget's queue (Slurm's
 * `scontrol update`). Each field is submit's own schema (the same words, the same bounds); a field left
 * out stays as it is, and maxRuntime null removes the limit (nodes or excludeNodes null, the list). `array`: the id is an array's, and every
 * task of it that still waits is changed. The checks that need the database are the domain's
 * (update-job.ts), again submit's.
 */
export const updateJobInput = strictObject(
  {
    gpus: submit.gpus.optional(),
    minRuntime: submit.minRuntime.optional(),
    maxRuntime: submit.maxRuntime,
    priority: submit.priority.unwrap().optional(),
    name: submit.name,
    budget: submit.budget.optional(),
    nodes: nodeListFields.nodes.unwrap().nullable().optional(),
    excludeNodes: nodeListFields.excludeNodes.unwrap().nullable().optional(),
    array: z
      .boolean({ error: typeError("array", "array must be true or false") })
      .optional()
      .describe("The id is a job array's: change every task of it that waits to start"),
  },
  "a job update",
).refine((u) => UPDATABLE_JOB_FIELDS.some((f) => u[f] !== undefined), {
  message: `nothing to change: give at least one of ${UPDATABLE_JOB_FIELDS.join(", ")}`,
});
export type UpdateJobInput = z.input<typeof updateJobInput>;
export type UpdateJob = z.output<typeof updateJobInput>;
