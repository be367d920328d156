type Env = Record<string, string | undefined>;

/** The address users reach the web app at. */
export function publicUrl(env: Env = process.env): string {
  return env.TRANCHE_PUBLIC_URL ?? env.BETTER_AUTH_URL ?? "http://127.0.0.1:3000";
}

/** The web app's origin (scheme, host and port) from publicUrl. */
export function publicOrigin(env: Env = process.env): string {
  return new URL(publicUrl(env)).origin;
}
