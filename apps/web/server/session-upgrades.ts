import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { isSessionUpgrade, proxySessionUpgrade } from "@tranche/api/rest";
import { tapServerEvents } from "./server-events";
import { servedOrigins } from "./sessions-origin";

/**
 * A session's WebSockets (Jupyter's kernels) reach its server through the sessions host. Next hands
 * an upgrade to its own handler, which knows no route of ours, so the server's "upgrade" event is
 * taken first for the session proxy's paths on the sessions host (the REST module checks the owner and
 * passes the bytes); every other upgrade goes on to Next. Installed once per process from
 * instrumentation.ts, as the peer address stamp is.
 */
export function serveSessionUpgrades(): void {
  tapServerEvents("session upgrades", (event, args) => {
    if (event !== "upgrade") return false;
    const [req, socket, head] = args as [IncomingMessage, Duplex, Buffer];
    const origins = servedOrigins();
    if (!isSessionUpgrade(req, origins)) return false;
    // Nothing may throw into the HTTP parser's callback: a fault closes this connection only.
    import("./db")
      .then(({ db }) => proxySessionUpgrade(req, socket, head, { prisma: db(), origins }))
      .catch((e: unknown) => {
        console.error("session WebSocket:", e);
        socket.destroy();
      });
    return true;
  });
}
