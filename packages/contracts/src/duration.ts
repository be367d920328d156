import { z } from "zod";
import { durationProblem, parseDuration } from "./format";
import { LIMITS } from "./limits";

export { formatDuration, formatExactDuration, parseDuration, durationProblem, expectedStartWords } from "./format";

/** A duration field: seconds (number) or a string such as "2h"; always yields whole seconds. */
export function duration(field: string) {
  return z
    .union([z.number(), z.string()])
    .describe(`${field}: whole seconds, or a duration such as "5400s", "90m", "2h", "1h30m"`)
    .transform((v, ctx) => {
      const secs = parseDuration(v);
      if (secs === null) {
        ctx.issues.push({ code: "custom", input: v, message: durationProblem(field, v) });
        return z.NEVER;
      }
      if (secs > LIMITS.durationSec) {
        ctx.issues.push({
          code: "custom",
          input: v,
          message: `${field} must be at most ${LIMITS.durationSec / 86_400} days, got ${secs.toLocaleString("en-US")} s`,
        });
        return z.NEVER;
      }
      return secs;
    });
}
