import type { Server } from "node:http";
import type { Duplex } from "node:stream";
import { tapServerEvents } from "./server-events";

/**
 * Requests still answered after a SIGTERM before their connections are cut: a heartbeat or a page
 * finishes in that time; long-polls are answered at once (`shutdownSignal`).
 */
export const SHUTDOWN_GRACE_MS = 1000;
/** The process exits by then whatever still holds it (a pool, a close that never ends). */
export const SHUTDOWN_DEADLINE_MS = 4000;

interface ShutdownState {
  controller: AbortController;
  servers: Set<Server>;
  upgraded: Set<Duplex>;
  installed: boolean;
}

// On globalThis: Next loads instrumentation and each route handler as bundles of their own, and they
// must share one state.
function state(): ShutdownState {
  const g = globalThis as unknown as { trancheShutdown?: ShutdownState };
  return (g.trancheShutdown ??= {
    controller: new AbortController(),
    servers: new Set(),
    upgraded: new Set(),
    installed: false,
  });
}

/** Aborted when the process was told to stop: a long-poll answers at once rather than hold the exit. */
export function shutdownSignal(): AbortSignal {
  return state().controller.signal;
}

/**
 * Make SIGTERM (systemd, `npm start`, an operator restarting the web app) and SIGINT end this process
 * within seconds. Next's own handler stops listening and waits for every open connection to end, and
 * waits for nothing else: an agent's long-poll (25 s), an agent that sends its next request on a kept-alive
 * connection, a session's WebSocket or a streamed session page kept it alive for 40 s until it was killed,
 * and the agents, unanswered meanwhile, are 30 s from stopping their jobs. So: long-polls answer now, the
 * requests in flight get SHUTDOWN_GRACE_MS, then every connection (WebSockets too) is cut, and the process
 * exits by SHUTDOWN_DEADLINE_MS in any case. Next's handler still runs and exits first when it can.
 */
export function exitPromptlyOnSignal(opts: { graceMs?: number; deadlineMs?: number; exit?: (code: number) => void } = {}): void {
  const s = state();
  if (s.installed) return;
  s.installed = true;
  tapServerEvents("shutdown", (event, args, server) => {
    s.servers.add(server);
    if (event === "upgrade") {
      const socket = args[1] as Duplex;
      s.upgraded.add(socket);
      socket.once("close", () => s.upgraded.delete(socket));
    }
    return false;
  });
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  const stop = (signal: NodeJS.Signals) => {
    if (s.controller.signal.aborted) return;
    s.controller.abort();
    for (const server of s.servers) server.close();
    setTimeout(() => {
      for (const server of s.servers) server.closeAllConnections();
      for (const socket of s.upgraded) socket.destroy();
    }, opts.graceMs ?? SHUTDOWN_GRACE_MS).unref();
    setTimeout(() => exit(signal === "SIGINT" ? 130 : 143), opts.deadlineMs ?? SHUTDOWN_DEADLINE_MS).unref();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
