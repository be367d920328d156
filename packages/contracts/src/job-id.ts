import { z } from "zod";
import { strictObject } from "./input";
import { INT32_MAX } from "./limits";

/**
 * A job's id as a request gives it (a path segment or a JSON number): its own file so that both
 * job.ts and session.ts build on it without importing each other (job.ts already imports session.ts).
 */
export const jobIdInput = strictObject(
  {
    id: z.coerce
      .number({ error: "job id must be a number" })
      .int("job id must be a whole number")
      .positive("job id must be positive")
      .max(INT32_MAX, `job id must be at most ${INT32_MAX.toLocaleString("en-US")}`),
  },
  "a job reference",
);
