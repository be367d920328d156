import { Server } from "node:http";

/**
 * `next start` owns the HTTP server and gives an app no handle on it, so what must happen before Next
 * sees a request is hooked into every HTTP server of the process: `tap` runs first on each event, and
 * when it returns true it has handled the event and no listener sees it. It is given the server too,
 * the only handle on it an app gets. Installed once per process and `name` (Next may evaluate
 * instrumentation more than once).
 */
export function tapServerEvents(name: string, tap: (event: string | symbol, args: unknown[], server: Server) => boolean): void {
  const g = globalThis as unknown as { trancheServerTaps?: Set<string> };
  const taps = (g.trancheServerTaps ??= new Set());
  if (taps.has(name)) return;
  taps.add(name);
  const emit = Server.prototype.emit;
  Server.prototype.emit = function (this: Server, event: string | symbol, ...args: unknown[]) {
    if (tap(event, args, this)) return true;
    return (emit as (this: Server, ...a: unknown[]) => boolean).call(this, event, ...args);
  } as typeof emit;
}
