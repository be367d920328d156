import { z } from "zod";
import { durationProblem, parseDuration } from "./format";
import { gotWords, typeError } from "./input";
import { LIMITS } from "./limits";

export {
  formatDuration,
  formatExactDuration,
  parseDuration,
  durationProblem,
  expectedStartWords,
  runtimeOrderProblem,
} from "./format";

/**
 * A duration field: seconds (number) or a string such as "2h"; always yields whole seconds. Missing, it
 * is "required" with an example (`example`: what a caller would give, "2h or 0" where 0 means something);
 * null or another type is named ("got null"). `label`: the field as its messages name it, the form's and
 * the CLI's words ("Minimum runtime") where people submit it; the field's own name otherwise.
 */
export function duration(field: string, example = "2h", label = field) {
  return z
    .union([z.number(), z.string()], {
      error: (iss) =>
        typeError(
          field,
          `${label} must be whole seconds or a duration such as "2h", got ${gotWords(iss.input)}`,
          `${label} is required (e.g. ${example})`,
        )(iss),
    })
    .describe(`${field}: whole seconds, or a duration such as "5400s", "90m", "2h", "1h30m"`)
    .transform((v, ctx) => {
      const secs = parseDuration(v);
      if (secs === null) {
        ctx.issues.push({ code: "custom", input: v, message: durationProblem(label, v) });
        return z.NEVER;
      }
      if (secs > LIMITS.durationSec) {
        ctx.issues.push({
          code: "custom",
          input: v,
          message: `${label} must be at most ${LIMITS.durationSec / 86_400} days, got ${secs.toLocaleString("en-US")} s`,
        });
        return z.NEVER;
      }
      return secs;
    });
}

/**
 * Where people type a duration (the CLI's options, the web's forms), a number must carry its unit, 0
 * excepted: "90" was taken as 90 seconds while Slurm's `--time 90` is 90 minutes, so a researcher who
 * meant minutes got a job protected for 1 min 30 s. The words for `label` ("--min-runtime", "Minimum
 * runtime"), or null when the value has a unit (or is not a number at all: the schema says why).
 * REST and `--file` keep whole seconds, as documented.
 */
export function missingUnitProblem(label: string, value: string): string | null {
  const n = value.trim();
  if (!/^\d+(\.\d+)?$/.test(n) || Number(n) === 0) return null;
  return `${label} ${n} has no unit: write ${n}m for minutes, ${n}h for hours or ${n}s for seconds`;
}
