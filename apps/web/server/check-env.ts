import { logRetentionBytes } from "@tranche/domain/runtime";

/**
 * Settings read on a hot path are checked once when the web app starts, so a bad value stops it with
 * one clear line instead of answering 500 to every agent heartbeat (TRANCHE_LOG_RETENTION_BYTES is read
 * at each heartbeat that carries log chunks). Returns the problems found, one line each.
 */
export function envProblems(env: Record<string, string | undefined> = process.env): string[] {
  const problems: string[] = [];
  try {
    logRetentionBytes(env as NodeJS.ProcessEnv);
  } catch (e) {
    problems.push((e as Error).message);
  }
  return problems;
}
