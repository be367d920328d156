import { CliError } from "./client";

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
  throw new CliError(`${option} must be ${should}, got '${value}'`);
}
