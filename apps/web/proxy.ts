import { NextResponse, type NextRequest } from "next/server";
import { badPathEncoding } from "./server/bad-path";
import { sessionsHostRefusal } from "./server/sessions-gate";
import { servedOrigins } from "./server/sessions-origin";
import { PATH_HEADER } from "./app/login/return-path";

// Next's front gate, before any route: on the sessions host only the session proxy is served. On the
// app, the page asked for travels to the layout (PATH_HEADER), which sends someone signed out to the
// sign-in page with it, so they come back to it. A path Next could not decode is answered 400 here.
export function proxy(req: NextRequest): Response {
  const undecodable = badPathEncoding(req.nextUrl.pathname);
  if (undecodable) return undecodable;
  const refused = sessionsHostRefusal(req, servedOrigins());
  if (refused) return refused;
  const headers = new Headers(req.headers);
  headers.set(PATH_HEADER, req.nextUrl.pathname + req.nextUrl.search);
  return NextResponse.next({ request: { headers } });
}
