// A session's WebSockets (Jupyter's kernels) through the sessions host, over real sockets and a real
// Postgres: an HTTP server hands its upgrades to the module the web app installs, and a small server
// stands in for the session's, switching protocols and echoing what it gets. Only the owner, from the
// sessions host's own pages or with an API token, gets through, and the session's server sees its own
// token, never the caller's cookie or origin.
import { createServer, request, type IncomingHttpHeaders, type Server } from "node:http";
import type { Socket } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { LIMITS } from "@tranche/contracts";
import { createApiToken, endSessionGrants, issueSessionTicket, newHandoffState, redeemSessionTicket } from "@tranche/domain";
import { enterSessionSocket } from "../src/request-gate";
import { isSessionUpgrade, proxySessionUpgrade } from "../src/rest";
import { makeWorld, runningSession, type World } from "./fixtures";

const APP = "http://127.0.0.1:3000";
const SESSIONS = "http://localhost:3000";
const origins = { app: APP, sessions: SESSIONS };

let w: World;
let front: Server;
let sessionServer: Server;
let frontPort = 0;
let sessionPort = 0;
/** The handshakes that reached the session's server. */
let reached: IncomingHttpHeaders[] = [];
let s1 = 0; // Ada's session
let s2 = 0; // another of Ada's
let grant1 = "";
let token1 = "";
const tokens: Record<string, string> = {};

beforeAll(async () => {
  w = await makeWorld("api_session_upgrade");
  sessionServer = createServer((_req, res) => res.writeHead(404).end());
  sessionServer.on("upgrade", (req, socket: Socket, head: Buffer) => {
    reached.push(req.headers);
    socket.on("end", () => socket.end());
    // A page that is not a WebSocket: answered as HTTP, the connection kept open for more (keep-alive).
    if (req.url?.endsWith("/not-a-socket")) return void socket.write("HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n");
    socket.write("HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n\r\n");
    if (head.length) socket.write(head);
    socket.on("data", (d: Buffer) => socket.write(d));
  });
  await new Promise<void>((ok) => sessionServer.listen(0, "127.0.0.1", ok));
  sessionPort = (sessionServer.address() as { port: number }).port;
  front = createServer((_req, res) => res.writeHead(404).end());
  front.on("upgrade", (req, socket: Socket, head: Buffer) => {
    if (isSessionUpgrade(req, origins))
      void proxySessionUpgrade(req, socket, head, { prisma: w.db.prisma, origins, recheckMs: 100 });
    else socket.end("HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n");
  });
  await new Promise<void>((ok) => front.listen(0, "127.0.0.1", ok));
  frontPort = (front.address() as { port: number }).port;

  const first = await runningSession(w, w.users.ada, sessionPort);
  s1 = first.id;
  token1 = first.token;
  // The second session's server does not listen: a port taken and given back.
  const idle = createServer();
  await new Promise<void>((ok) => idle.listen(0, "127.0.0.1", ok));
  const idlePort = (idle.address() as { port: number }).port;
  await new Promise((ok) => idle.close(ok));
  s2 = (await runningSession(w, w.users.ada, idlePort)).id;
  const state = newHandoffState();
  const ticket = await issueSessionTicket(w.db.prisma, w.users.ada, s1, state);
  grant1 = (await redeemSessionTicket(w.db.prisma, { ticket, state, jobId: s1 })).grant;
  tokens.ada = (await createApiToken(w.db.prisma, w.users.ada, { name: "t" })).token;
  tokens.maya = (await createApiToken(w.db.prisma, w.users.maya, { name: "t" })).token;
}, 60_000);

afterAll(async () => {
  await new Promise((ok) => front?.close(ok));
  await new Promise((ok) => sessionServer?.close(ok));
  await w?.db.drop();
});

beforeEach(() => {
  reached = [];
});

type Opened = { switched: true; echo: string } | { switched: false; status: number; message: string };

/** Opens a WebSocket handshake to the front server as `host`; sends "ping" once switched and reads the echo. */
function open(path: string, headers: Record<string, string>, host = SESSIONS): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: "127.0.0.1",
      port: frontPort,
      path,
      headers: {
        host: new URL(host).host,
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
        "sec-websocket-version": "13",
        ...headers,
      },
    });
    req.on("upgrade", (_res, socket: Socket) => {
      socket.once("data", (d: Buffer) => {
        socket.destroy();
        resolve({ switched: true, echo: d.toString() });
      });
      socket.write("ping");
    });
    req.on("response", (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => {
        const message = body ? ((JSON.parse(body) as { error?: { message?: string } }).error?.message ?? body) : "";
        resolve({ switched: false, status: res.statusCode ?? 0, message });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

const openConnections = (srv: Server) => new Promise<number>((ok) => srv.getConnections((_e, n) => ok(n)));
const ws = (id: number) => `/api/v1/sessions/${id}/proxy/api/kernels/k1/channels?session_id=x`;
const cookie = (grant: string) => `tranche-session=${grant}; better-auth.session_token=app-login`;

/** A WebSocket to session 1's kernel through the sessions host, kept open; rejects if it is refused. */
function openSocket(headers: Record<string, string>): Promise<Socket> {
  return new Promise<Socket>((resolve, reject) => {
    const req = request({
      host: "127.0.0.1",
      port: frontPort,
      path: ws(s1),
      headers: {
        host: new URL(SESSIONS).host,
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
        "sec-websocket-version": "13",
        ...headers,
      },
    });
    req.on("upgrade", (_res, s: Socket) => resolve(s));
    req.on("response", (res) => reject(new Error(`refused: ${res.statusCode}`)));
    req.end();
  });
}

describe("a session's WebSockets, through the sessions host", () => {
  it("the owner's page opens one: the session's server switches protocols, sees its own token and no cookie, and the bytes pass both ways", async () => {
    const r = await open(ws(s1), { origin: SESSIONS, cookie: cookie(grant1) });
    expect(r).toEqual({ switched: true, echo: "ping" });
    expect(reached).toHaveLength(1);
    expect(reached[0]!.authorization).toBe(`token ${token1}`);
    expect(reached[0]!.cookie).toBeUndefined();
    expect(reached[0]!.origin).toBeUndefined();
    expect(reached[0]!["sec-websocket-key"]).toBe("dGhlIHNhbXBsZSBub25jZQ==");
    // The browser closed its end: both connections close.
    await expect.poll(async () => [await openConnections(front), await openConnections(sessionServer)]).toEqual([0, 0]);
  });

  it("a page of another site, or of the app itself, cannot open one with the owner's cookie", async () => {
    for (const origin of ["https://evil.example", APP]) {
      const r = await open(ws(s1), { origin, cookie: cookie(grant1) });
      expect(r).toMatchObject({ switched: false, status: 403 });
      expect((r as { message: string }).message).toContain(origin);
    }
    expect(reached).toHaveLength(0);
  });

  it("without the session's cookie, with another session's, or with the cookie but no Origin, it is refused", async () => {
    expect(await open(ws(s1), { origin: SESSIONS })).toMatchObject({ switched: false, status: 401 });
    expect(await open(ws(s2), { origin: SESSIONS, cookie: cookie(grant1) })).toMatchObject({ switched: false, status: 401 });
    expect(await open(ws(s1), { origin: SESSIONS, cookie: cookie("forged") })).toMatchObject({ switched: false, status: 401 });
    expect(await open(ws(s1), { cookie: cookie(grant1) })).toMatchObject({ switched: false, status: 403 });
    expect(reached).toHaveLength(0);
  });

  it("a script opens one with its owner's API token; another user's token is refused", async () => {
    expect(await open(ws(s1), { authorization: `Bearer ${tokens.ada}` })).toEqual({ switched: true, echo: "ping" });
    const r = await open(ws(s1), { authorization: `Bearer ${tokens.maya}` });
    expect(r.switched).toBe(false);
    expect([403, 404]).toContain((r as { status: number }).status);
    expect(await open(ws(s1), { authorization: "Bearer nope" })).toMatchObject({ switched: false, status: 401 });
    expect(reached).toHaveLength(1);
  });

  it("a session whose server does not listen is answered 503 with why, and a stopped one 409", async () => {
    const r = await open(ws(s2), { authorization: `Bearer ${tokens.ada}` });
    expect(r).toMatchObject({ switched: false, status: 503 });
    expect((r as { message: string }).message).toContain("does not answer");
    await w.db.prisma.job.update({ where: { id: s2 }, data: { state: "COMPLETED" } });
    const stopped = await open(ws(s2), { authorization: `Bearer ${tokens.ada}` });
    expect(stopped).toMatchObject({ switched: false, status: 409 });
  });

  it("a path where the session's server opens no WebSocket is refused and the connection closed, so nothing more reaches it past the proxy", async () => {
    const r = await open(`/api/v1/sessions/${s1}/proxy/not-a-socket`, { authorization: `Bearer ${tokens.ada}` });
    expect(r).toMatchObject({ switched: false, status: 502 });
    expect((r as { message: string }).message).toContain("it answered 404");
    expect(reached).toHaveLength(1);
    await expect.poll(async () => [await openConnections(front), await openConnections(sessionServer)]).toEqual([0, 0]);
  });

  it("one that is open closes once its owner signs out (the sessions host's cookies end with the login)", async () => {
    const socket = await openSocket({ origin: SESSIONS, cookie: cookie(grant1) });
    let closed = false;
    socket.on("close", () => (closed = true));
    // Still open across several checks while the cookie holds.
    await new Promise((ok) => setTimeout(ok, 400));
    expect(closed).toBe(false);
    await endSessionGrants(w.db.prisma, w.users.ada.id);
    await expect.poll(() => closed, { timeout: 3000 }).toBe(true);
    await expect.poll(async () => [await openConnections(front), await openConnections(sessionServer)]).toEqual([0, 0]);
  });

  it("one person has at most LIMITS.sessionSocketsPerUser open at once (429 past it); a closed one frees its place", async () => {
    // Each open WebSocket holds two connections of the web process: without a bound one person could
    // open them until the process has no file descriptors left for anyone (the agents' heartbeats included).
    const held = Array.from({ length: LIMITS.sessionSocketsPerUser - 1 }, () => enterSessionSocket(w.users.ada.id));
    try {
      const last = await openSocket({ authorization: `Bearer ${tokens.ada}` });
      const over = await open(ws(s1), { authorization: `Bearer ${tokens.ada}` });
      expect(over).toEqual({
        switched: false,
        status: 429,
        message: `You have ${LIMITS.sessionSocketsPerUser} WebSockets open to your sessions, and at most ${LIMITS.sessionSocketsPerUser} may be open at once for one person; close one first`,
      });
      // Another person's are their own.
      const maya = Array.from({ length: LIMITS.sessionSocketsPerUser - 1 }, () => enterSessionSocket(w.users.maya.id));
      maya.forEach((leave) => leave());
      last.destroy();
      await expect.poll(async () => (await open(ws(s1), { authorization: `Bearer ${tokens.ada}` })).switched).toBe(true);
    } finally {
      held.forEach((leave) => leave());
    }
    await expect.poll(async () => [await openConnections(front), await openConnections(sessionServer)]).toEqual([0, 0]);
  });

  it("upgrades to the app's own address, or to other paths of the sessions host, are not the proxy's", () => {
    const req = (host: string, url: string) => ({ url, headers: { host: new URL(host).host } }) as never;
    expect(isSessionUpgrade(req(SESSIONS, ws(s1)), origins)).toBe(true);
    expect(isSessionUpgrade(req(APP, ws(s1)), origins)).toBe(false);
    expect(isSessionUpgrade(req(SESSIONS, "/_next/webpack-hmr"), origins)).toBe(false);
    expect(isSessionUpgrade(req(SESSIONS, ws(s1)), { app: APP, sessions: null })).toBe(false);
  });
});
