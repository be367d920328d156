import { Option } from "commander";
import { INT32_MAX, expandNodeList, missingUnitProblem } from "@tranche/contracts";
import { CliError } from "./client";

/**
 * A mistake in the command line itself (an argument, an option): exit code 2, as a shell's and
 * commander's own usage errors, and always before any request, so it is said whether or not the caller
 * is signed in (`tranche explain abc` said "Not signed in" first).
 */
export function usageError(message: string): CliError {
  return new CliError(message, 2);
}

/** A job id given as an argument: a whole number from 1 (`what`: "job", "session", "array"). */
export function jobIdArg(value: string, what = "job"): number {
  const n = /^\d{1,10}$/.test(value) ? Number(value) : NaN;
  if (n >= 1 && n <= INT32_MAX) return n;
  throw usageError(`${what} id must be a whole number written in digits (such as 42), got '${value}'`);
}

/**
 * A count given as an option (--limit, --tail): a positive whole number, at most `max` where the CLI
 * itself sets the bound (the server checks its own and its answer names it). Anything else stops the
 * command before any request, naming the option: `--limit 0` showed a queue without its rows, and
 * `--limit abc` quietly showed the default.
 */
export function countOption(option: string, value: string, max?: number): number {
  const n = /^\d{1,15}$/.test(value) ? Number(value) : NaN;
  if (n >= 1 && (max === undefined || n <= max)) return n;
  const should = max === undefined ? "a positive whole number" : `a whole number from 1 to ${max.toLocaleString("en-US")}`;
  throw usageError(`${option} must be ${should}, got '${value}'`);
}

/**
 * A duration given as an option (--min-runtime, --max-runtime, --grace, --by): a number must carry its
 * unit, 0 excepted (contracts' missingUnitProblem, which the web's forms apply too). The value goes on
 * as given; the server's schema reads the rest (units, signs) with its own words.
 */
export function durationOption(option: string, value: string): string {
  const problem = missingUnitProblem(option, value);
  if (problem === null) return value;
  throw usageError(`${problem} (e.g. ${option} 2h)`);
}

/** What Slurm's --time becomes here: sbatch --time is a maximum runtime, and tranche protects a minimum too. */
export const NO_TIME_OPTION =
  "tranche has no --time: the maximum runtime is --max-runtime (and the protected minimum --min-runtime)";

/**
 * Slurm's `--time`/`-t` on a command that starts jobs: refused with the options to use instead. Unknown,
 * it got commander's nearest spellings ("Did you mean one of --file, --name?"), which led nowhere. Hidden
 * from the help: it is not an option of tranche, only a word a Slurm user reaches for.
 */
export function slurmTimeOption(): Option {
  return new Option("-t, --time <duration>").hideHelp().argParser(() => {
    throw usageError(NO_TIME_OPTION);
  });
}

/**
 * `tranche limit PATH GPUS`: a whole number of GPUs, at least 1, or `none` to remove the limit. Checked
 * here because the server's words are the API's ("or null for no limit"), and `abc` became NaN, which
 * JSON sends as null: it removed the limit instead of refusing.
 */
export function perUserLimitArg(value: string): number | null {
  if (value === "none") return null;
  const n = /^\d{1,15}$/.test(value) ? Number(value) : NaN;
  if (n >= 1) return n;
  throw usageError(`The GPU limit must be a whole number of at least 1, or none for no limit; got '${value}'`);
}

/**
 * `--nodelist` / `--exclude`: node names, comma-separated, with Slurm's ranges (`gpu-[03-05]`). With
 * `none` (update only) the list is removed: null.
 */
export function nodeListOption(option: string, value: string, allowNone = false): string[] | null {
  if (allowNone && value.trim() === "none") return null;
  const names = expandNodeList(value, option);
  if (typeof names === "string") throw usageError(names);
  return names;
}
