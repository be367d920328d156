import { z } from "zod";
import { parseDuration } from "./format";
import { LIMITS } from "./limits";

export { formatDuration, parseDuration } from "./format";

/** A duration field: seconds (number) or a string such as "2h"; always yields whole seconds. */
export function duration(field: string) {
  return z
    .union([z.number(), z.string()])
    .describe(`${field}: whole seconds, or a duration such as "90s", "15m", "2h", "1h30m"`)
    .transform((v, ctx) => {
      const secs = parseDuration(v);
      if (secs === null) {
        ctx.issues.push({ code: "custom", input: v, message: `${field} '${v}' is not a duration (use seconds or e.g. 15m, 2h)` });
        return z.NEVER;
      }
      if (!Number.isInteger(secs)) {
        ctx.issues.push({ code: "custom", input: v, message: `${field} must be whole seconds, got ${secs}` });
        return z.NEVER;
      }
      if (secs < 0) {
        ctx.issues.push({ code: "custom", input: v, message: `${field} must not be negative, got ${secs} s` });
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
