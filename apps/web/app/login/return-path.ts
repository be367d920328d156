/** The request header the front gate (proxy.ts) sets to the path and query a page was asked for. */
export const PATH_HEADER = "x-tranche-path";

/**
 * Where the sign-in page sends a person once they are signed in: the page they asked for before
 * (`/login?next=/jobs/12`), so a link to a job or a session works for someone signed out. Only a path
 * of this app is followed; anything else (another site, `//host`, a backslash trick, the sign-in page
 * itself) goes to the overview, so the parameter cannot send anyone away from Tranche.
 */
export function returnPath(next: unknown): string {
  if (typeof next !== "string" || next.length > 2000) return "/";
  if (!next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return "/";
  // Control characters and backslashes: browsers read some of them as a new host or scheme.
  for (let i = 0; i < next.length; i++) {
    const c = next.charCodeAt(i);
    if (c < 0x20 || c === 0x7f || c === 0x5c) return "/";
  }
  if (next === "/login" || next.startsWith("/login?") || next.startsWith("/login/")) return "/";
  return next;
}

/** The sign-in page's address for someone signed out who asked for `path` (the proxy's x-tranche-path). */
export function loginPath(path: string | null | undefined): string {
  const back = returnPath(path);
  return back === "/" ? "/login" : `/login?next=${encodeURIComponent(back)}`;
}
