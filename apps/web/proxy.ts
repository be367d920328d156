import { NextResponse, type NextRequest } from "next/server";
import { frontGate } from "./server/front-gate";
import { PATH_HEADER } from "./app/login/return-path";

// Next's proxy, before a page: the front gate (a path Next cannot decode, the sessions host serving
// sessions only), then the page asked for travels to the layout (PATH_HEADER), which sends someone
// signed out to the sign-in page with it, so they come back to it.
export function proxy(req: NextRequest): Response {
  const refused = frontGate(req);
  if (refused) return refused;
  const headers = new Headers(req.headers);
  headers.set(PATH_HEADER, req.nextUrl.pathname + req.nextUrl.search);
  return NextResponse.next({ request: { headers } });
}

// Pages only, and only a request without a body: Next copies the body of each request its proxy runs
// for (up to 10 MB) and holds the copy until the request ends, so a client that sent most of a body and
// stalled held that much memory per connection. No page reads a body. What the proxy leaves out passes
// the same gate in the server, before Next (server/unproxied-gate.ts).
export const config = {
  matcher: [
    {
      source: "/((?!api/).*)",
      missing: [
        { type: "header", key: "content-length" },
        { type: "header", key: "transfer-encoding" },
      ],
    },
  ],
};
