type Env = Record<string, string | undefined>;

/**
 * A whole-number setting from the environment: `fallback` when unset or empty, else a whole number from
 * `min` to `max`. Anything else stops the caller with one line naming the setting and what it takes
 * (`what`, e.g. " of days from 1 to 3650"), never replaced by the default in silence.
 */
export function wholeNumberFromEnv(
  env: Env,
  name: string,
  fallback: number,
  rule: { min: number; max?: number; what: string },
): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < rule.min || n > (rule.max ?? Number.MAX_SAFE_INTEGER))
    throw new Error(`${name} must be a whole number${rule.what}, not '${env[name]}'`);
  return n;
}
