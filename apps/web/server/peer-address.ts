import type { IncomingMessage } from "node:http";
import { PEER_HEADER } from "./client-address";
import { tapServerEvents } from "./server-events";

/**
 * Next's route handlers see a web Request without the socket, and Next copies the client's own
 * X-Forwarded-For through unchanged, so the server stamps the TCP peer's address into a header of its
 * own on every request before Next reads it, overwriting any value a client sent under that name.
 * Installed once per process from instrumentation.ts (the `next start` process owns the HTTP server).
 */
export function stampPeerAddresses(): void {
  tapServerEvents("peer address", (event, args) => {
    if (event === "request") {
      const req = args[0] as IncomingMessage;
      req.headers[PEER_HEADER] = req.socket?.remoteAddress ?? "";
    }
    return false;
  });
}
