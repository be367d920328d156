/** The value of cookie `name` a request's headers carry, or null. */
export function readCookie(headers: Headers, name: string): string | null {
  for (const part of (headers.get("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/**
 * A Set-Cookie line for the sessions host: HttpOnly (no script, a session's own included, reads it),
 * SameSite=Lax (it must come along when the web app sends the browser back, a cross-site navigation,
 * and stays home on other sites' form posts), Secure under https. `maxAge` 0 removes it.
 */
export function setCookie(name: string, value: string, o: { path: string; maxAge: number; secure: boolean }): string {
  return `${name}=${value}; Path=${o.path}; Max-Age=${o.maxAge}; HttpOnly; SameSite=Lax${o.secure ? "; Secure" : ""}`;
}
