import { publicOrigin, publicUrl } from "./public-url";

type Env = Record<string, string | undefined>;

const SETTING = "TRANCHE_SESSIONS_ORIGIN";
/** Two names of this machine that browsers take for two sites, so a pair of origins without DNS work. */
const LOOPBACK_TWIN: Record<string, string> = { "127.0.0.1": "localhost", localhost: "127.0.0.1" };

/**
 * Where interactive sessions are served: TRANCHE_SESSIONS_ORIGIN, an origin with a host name of its own
 * (https://sessions.lab.example). A session serves its owner's code and whatever its notebooks load; on
 * the app's origin those scripts would act with the owner's Tranche login.
 *
 * Unset, a web app on 127.0.0.1 or localhost (`npm start`, the demo) serves sessions on the other of the
 * two names, same port. Any other app address gets null: sessions are not served until it is set, never
 * served from the app's own origin. A malformed value throws one line naming the problem.
 */
export function sessionsOrigin(env: Env = process.env): string | null {
  let app: URL;
  try {
    app = new URL(publicUrl(env));
  } catch {
    throw new Error(`TRANCHE_PUBLIC_URL must be a URL such as https://tranche.lab.example, not '${publicUrl(env)}'`);
  }
  const raw = env[SETTING]?.trim();
  if (!raw) {
    const twin = LOOPBACK_TWIN[app.hostname];
    if (!twin) return null;
    const u = new URL(app.origin);
    u.hostname = twin;
    return u.origin;
  }
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error(`${SETTING} must be an origin such as https://sessions.lab.example, not '${raw}'`);
  }
  if (u.protocol !== "https:" && u.protocol !== "http:")
    throw new Error(`${SETTING} must start with https:// (or http://), not '${raw}'`);
  if (u.username || u.password || u.pathname !== "/" || u.search || u.hash)
    throw new Error(`${SETTING} must be an origin alone (scheme, host and port), with no path, query or user: '${raw}'`);
  if (u.hostname === app.hostname)
    throw new Error(
      `${SETTING} must name another host than TRANCHE_PUBLIC_URL (${app.hostname}): browsers share cookies across ports, so a port of its own does not set sessions apart`,
    );
  if (app.protocol === "https:" && u.protocol !== "https:")
    throw new Error(`${SETTING} must use https:// as TRANCHE_PUBLIC_URL does, not '${raw}'`);
  return u.origin;
}

/** sessionsOrigin, or null where it is malformed (the start has already stopped on that). */
export function sessionsOriginOrNull(env: Env = process.env): string | null {
  try {
    return sessionsOrigin(env);
  } catch {
    return null;
  }
}

let served: { app: string; sessions: string | null } | null = null;
/**
 * The app's origin and the sessions host, read from this process's environment once: every request
 * asks (the front gate and the REST route), and the settings do not change while the process runs.
 */
export function servedOrigins(): { app: string; sessions: string | null } {
  return (served ??= { app: publicOrigin(), sessions: sessionsOriginOrNull() });
}
