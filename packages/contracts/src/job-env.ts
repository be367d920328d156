import { RESERVED_ENV } from "./job";

/**
 * A job's stored env, split by who set each variable: the researcher's own, and Tranche's (a job
 * array's TRANCHE_ARRAY_INDEX and TRANCHE_ARRAY_JOB_ID). A submission may not set a reserved name
 * (RESERVED_ENV), so any such name in the env is Tranche's.
 */
export function splitJobEnv(env: Readonly<Record<string, string>>): {
  own: [string, string][];
  tranche: [string, string][];
} {
  const own: [string, string][] = [];
  const tranche: [string, string][] = [];
  for (const [k, v] of Object.entries(env)) (Object.hasOwn(RESERVED_ENV, k) ? tranche : own).push([k, v]);
  tranche.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { own, tranche };
}
