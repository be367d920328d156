import { maxWaitingJobsPerUser } from "@tranche/domain";
import { logRetentionBytes, logUserBytes } from "@tranche/domain/runtime";
import { parseTrustedProxies } from "./client-address";
import { sessionsOrigin } from "./sessions-origin";

type Env = Record<string, string | undefined>;

/**
 * The web app's address lists, checked when it starts: a malformed TRANCHE_TRUSTED_PROXIES or
 * TRANCHE_METRICS_ALLOW stops the start with one line naming the variable and the entry, instead of
 * failing the first sign-in or scrape that reads it. So are TRANCHE_LOG_RETENTION_BYTES and TRANCHE_LOG_USER_BYTES, read at each agent
 * heartbeat that carries log chunks (a bad value used to answer 500 to every heartbeat), and
 * TRANCHE_MAX_WAITING_JOBS_PER_USER, read at each submission, and TRANCHE_SESSIONS_ORIGIN, read at each
 * request. Returns that line's message, or null when all is well.
 */
export function webConfigProblem(env: Env = process.env): string | null {
  try {
    parseTrustedProxies(env.TRANCHE_TRUSTED_PROXIES);
    parseTrustedProxies(env.TRANCHE_METRICS_ALLOW, "TRANCHE_METRICS_ALLOW");
    logRetentionBytes(env as NodeJS.ProcessEnv);
    logUserBytes(env as NodeJS.ProcessEnv);
    maxWaitingJobsPerUser(env as NodeJS.ProcessEnv);
    sessionsOrigin(env);
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}
