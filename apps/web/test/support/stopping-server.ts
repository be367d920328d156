// A stand-in for `next start` in the shutdown test: an HTTP server that stops on SIGTERM the way Next's
// start-server does in production (stop listening, wait for every connection to end, then exit 143),
// with the web app's shutdown hook installed as instrumentation.ts installs it. /wait holds like an
// agent's long-poll (25 s) unless the server is stopping; an upgrade is held open like a session's
// WebSocket. Prints its port once listening.
import { createServer } from "node:http";
import { exitPromptlyOnSignal, shutdownSignal } from "../../server/shutdown";

const server = createServer((req, res) => {
  if (req.url !== "/wait") return res.end("ok");
  const signal = AbortSignal.any([AbortSignal.timeout(25_000), shutdownSignal()]);
  const answer = () => res.end(JSON.stringify({ changed: false }));
  if (signal.aborted) answer();
  else signal.addEventListener("abort", answer, { once: true });
});
server.on("upgrade", (_req, socket) => {
  socket.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n");
});
process.on("SIGTERM", () => server.close(() => process.exit(143)));
server.listen(0, "127.0.0.1", () => {
  exitPromptlyOnSignal();
  console.log(`port ${(server.address() as { port: number }).port}`);
});
