import { createServer, type IncomingMessage, type Server } from "node:http";
import type { PrismaClient } from "@tranche/db";
import { agentReplyHeaders, agentRequestLimit, handleAgentRequest } from "./agent-protocol";
import { AgentWakeups } from "./agent-wait";

/**
 * The agent protocol on a bare node:http server: the same handlers the web app's route handlers call,
 * without Next.js. Integration tests and benchmarks use it; production serves /api/agent/v1 from the
 * web app. With `databaseUrl` it also serves the long-poll (/wait).
 */
export async function serveAgentProtocol(
  prisma: PrismaClient,
  port = 0,
  host = "127.0.0.1",
  opts: { databaseUrl?: string } = {},
): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const wakeups = opts.databaseUrl ? new AgentWakeups(opts.databaseUrl) : undefined;
  const server = createServer((req, res) => {
    const hangup = new AbortController();
    res.on("close", () => hangup.abort());
    // Like the web app's routes: the body is read only once the credential holds, and no further
    // than the limit (answered 413).
    const m = /^\/api\/agent\/v1\/([a-z-]+)\/?$/.exec(req.url ?? "");
    const route = m?.[1] ?? String(req.url);
    handleAgentRequest(
      prisma,
      {
        method: req.method ?? "GET",
        route,
        authorization: req.headers.authorization ?? null,
        readBody: () => readLimited(req, agentRequestLimit(route)),
      },
      { wakeups, signal: hangup.signal },
    ).then(
      (reply) => {
        res.writeHead(reply.status, { "content-type": "application/json", ...agentReplyHeaders(reply) });
        res.end(JSON.stringify(reply.body));
      },
      (e: unknown) => {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { code: "INTERNAL", message: String(e) } }));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const addr = server.address();
  const actual = typeof addr === "object" && addr ? addr.port : port;
  return {
    url: `http://${host}:${actual}`,
    server,
    close: async () => {
      await wakeups?.close();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}

/** The body as text, or null once it passes `limit` (what is past it is not kept). */
function readLimited(req: IncomingMessage, limit: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= limit) chunks.push(c);
    });
    req.on("end", () => resolve(size > limit ? null : Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
