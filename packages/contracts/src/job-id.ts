import { z } from "zod";
import { strictObject, typeError } from "./input";
import { INT32_MAX } from "./limits";

/**
 * A job id's text as a URL or a CLI argument gives it: plain decimal digits. Number() would also read
 * "1e3" as 1000, "0x10" as 16 and " 12 " or "" as numbers; those are not ids.
 */
const DIGITS = /^[0-9]+$/;

/**
 * A job's id as a request gives it (a path segment or a JSON number): its own file so that both
 * job.ts and session.ts build on it without importing each other (job.ts already imports session.ts).
 */
export const jobIdInput = strictObject(
  {
    id: z
      .union([z.number(), z.string()], { error: typeError("job id", "job id must be a number") })
      .transform((v, ctx) => {
        if (typeof v === "number") return v;
        if (DIGITS.test(v)) return Number(v);
        ctx.issues.push({
          code: "custom",
          input: v,
          message: `job id must be a whole number written in digits (such as 42), got '${v.slice(0, 20)}'`,
        });
        return z.NEVER;
      })
      .pipe(
        z
          .number()
          .int("job id must be a whole number")
          .positive("job id must be positive")
          .max(INT32_MAX, `job id must be at most ${INT32_MAX.toLocaleString("en-US")}`),
      ),
  },
  "a job reference",
);
