import { z } from "zod";
import { treePath } from "./admin";
import { strictObject } from "./input";
import { LIMITS } from "./limits";

const MAX = LIMITS.queueRowsMax.toLocaleString("en-US");

/**
 * GET /api/v1/queue/{cluster}?limit=N: how many pending rows to return, from the head of the queue.
 * Absent or empty: the default (LIMITS.queueRows, applied by the read). A query gives strings, so the
 * digits are checked as written (a number would read "abc" as NaN and say nothing useful about it).
 * Strict: a parameter it does not take (?limt=5) is refused by name, not ignored. `budget`: only the jobs
 * of that budget and its subtree (a group's path takes all its budgets), as squeue -A.
 */
export const queueQuery = strictObject(
  {
    limit: z.preprocess(
      (v) => (v === null || v === "" ? undefined : v),
      z
        .string()
        .trim()
        .regex(/^\d{1,15}$/, {
          error: (i) => `limit must be a whole number of pending rows (0 to ${MAX}), got '${String(i.input).slice(0, 40)}'`,
        })
        .transform(Number)
        .pipe(
          z
            .number()
            .max(LIMITS.queueRowsMax, { error: (i) => `limit must be at most ${MAX} pending rows, got ${String(i.input)}` }),
        )
        .optional(),
    ),
    budget: treePath("budget").optional(),
  },
  "the queue's query",
);
