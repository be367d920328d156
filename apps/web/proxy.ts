import { NextResponse, type NextRequest } from "next/server";
import { publicOrigin } from "./server/public-url";
import { sessionsHostRefusal } from "./server/sessions-gate";
import { sessionsOriginOrNull } from "./server/sessions-origin";

// Next's front gate, before any route: on the sessions host only the session proxy is served.
export function proxy(req: NextRequest): Response {
  return sessionsHostRefusal(req, { app: publicOrigin(), sessions: sessionsOriginOrNull() }) ?? NextResponse.next();
}
