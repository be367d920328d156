import { STATUS_CODES, type IncomingMessage } from "node:http";
import { connect, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { PrismaClient } from "@tranche/db";
import { addressedTo, proxiedSessionId } from "@tranche/contracts";
import { DomainError, readSessionGrant, sessionTarget, type Actor } from "@tranche/domain";
import { enterSessionSocket } from "../request-gate";
import { TooManyRequests } from "../too-many-requests";
import { bearerActor } from "./bearer";
import { readCookie } from "./cookies";
import { errorResponse, json } from "./io";
import { GRANT_COOKIE } from "./sessions-host";

/**
 * WebSockets to a session's server (Jupyter's kernels and terminals speak nothing else), on the
 * sessions host only. An upgrade is not a request a route handler sees: the HTTP server hands over the
 * socket (its "upgrade" event), and once the session's server has switched protocols the bytes pass
 * both ways untouched. The owner is known as for the proxy's pages (the host's cookie for that
 * session, or an API token). A browser's WebSocket carries the page's Origin and gets no CORS check,
 * so any site's page could open one with the owner's cookie: only the sessions host's own pages may.
 */

/** How long a session's server may take to accept the connection and answer the handshake. */
const HANDSHAKE_TIMEOUT_MS = 10_000;

/** How long a connection one side has ended may stay half open. */
const HALF_CLOSE_MS = 5_000;

/** The most a session's server's answer to the handshake may carry before its end. */
const MAX_HANDSHAKE_BYTES = 64 * 1024;

/** Headers of the handshake passed on; never cookies or the caller's credentials (the session gets its token). */
const PASS_UPGRADE = [
  "upgrade",
  "sec-websocket-key",
  "sec-websocket-version",
  "sec-websocket-protocol",
  "sec-websocket-extensions",
  "user-agent",
];

export interface UpgradeDeps {
  prisma: PrismaClient;
  origins: { app: string; sessions: string | null };
  /** How often an open WebSocket's right to stay open is checked again (default a minute; tests set less). */
  recheckMs?: number;
}

/** How often, by default, an open WebSocket's owner, cookie or token and session are checked again. */
const RECHECK_MS = 60_000;

/** Is this upgrade for the sessions host (a session's proxy path there)? Any other is not this module's. */
export function isSessionUpgrade(req: IncomingMessage, origins: UpgradeDeps["origins"]): boolean {
  return !!origins.sessions && addressedTo(headersOf(req), origins.sessions) && proxiedSessionId(urlOf(req).pathname) !== null;
}

/**
 * Where this session's WebSocket goes, or the answer that refuses it. Reads the request only; the
 * caller answers on the socket.
 */
export async function sessionUpgradeTarget(
  req: IncomingMessage,
  deps: UpgradeDeps,
): Promise<{ url: string; token: string; userId: string } | Response> {
  const id = proxiedSessionId(urlOf(req).pathname)!;
  const headers = headersOf(req);
  const origin = headers.get("origin");
  // A browser always sends Origin on a WebSocket; a script without one signs in with its token.
  if (origin !== null && origin !== deps.origins.sessions)
    return errorResponse("FORBIDDEN", `A session's WebSockets open from its own pages only, not from ${origin}`);
  let actor: Actor;
  const auth = headers.get("authorization");
  try {
    if (auth) {
      const a = await bearerActor(deps.prisma, auth);
      if (a instanceof Response) return a;
      actor = a;
    } else {
      const cookie = readCookie(headers, GRANT_COOKIE);
      const g = cookie ? await readSessionGrant(deps.prisma, cookie, id) : ({ refused: "unknown" } as const);
      if ("refused" in g)
        return g.refused === "disabled"
          ? errorResponse("FORBIDDEN", "Your account is disabled; ask an admin to enable it")
          : errorResponse("UNAUTHORIZED", `Open session ${id} from its page in Tranche first`);
      if (origin === null) return errorResponse("FORBIDDEN", "A WebSocket opened with the session's cookie must say its Origin");
      actor = g.actor;
    }
    return { ...(await sessionTarget(deps.prisma, actor, id)), userId: actor.id };
  } catch (e) {
    if (e instanceof DomainError) return errorResponse(e.code, e.message);
    console.error("session WebSocket", id, e);
    return errorResponse("UNAVAILABLE", "Tranche cannot check this session right now; try again in a moment");
  }
}

/**
 * Serve one upgrade on the sessions host: refuse it on the socket, or connect to the session's server,
 * send it the handshake with the session's token, and pass the bytes both ways from then on. Either
 * side closing or failing closes the other.
 */
export async function proxySessionUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, deps: UpgradeDeps): Promise<void> {
  socket.on("error", () => socket.destroy());
  const target = await sessionUpgradeTarget(req, deps);
  if (target instanceof Response) return refuse(socket, target);
  // Each open WebSocket holds two connections of this process for as long as it lives: bounded per person.
  let leave: () => void;
  try {
    leave = enterSessionSocket(target.userId);
  } catch (e) {
    if (e instanceof TooManyRequests) return refuse(socket, errorResponse("TOO_MANY_REQUESTS", e.message));
    throw e;
  }
  socket.once("close", leave);
  if (socket.destroyed) return leave();
  const url = new URL(target.url);
  const upstream = connect({ host: url.hostname.replace(/^\[|\]$/g, ""), port: Number(url.port) });
  upstream.on("error", () => {}); // "close" follows
  upstream.setTimeout(HANDSHAKE_TIMEOUT_MS, () => upstream.destroy());
  socket.on("close", () => upstream.destroy());
  upstream.once("connect", () => {
    const { pathname, search } = urlOf(req);
    // The path is passed whole, as for pages (the servers know their prefix, TRANCHE_SESSION_BASE).
    const lines = [`GET ${pathname}${search} HTTP/1.1`, `host: ${url.host}`, "connection: Upgrade"];
    for (const h of PASS_UPGRADE) {
      const v = req.headers[h];
      if (typeof v === "string") lines.push(`${h}: ${v}`);
    }
    lines.push(`authorization: token ${target.token}`);
    upstream.write(lines.join("\r\n") + "\r\n\r\n");
    if (head.length > 0) upstream.write(head);
  });
  const answer = await handshakeAnswer(upstream);
  if (answer instanceof Response) {
    upstream.destroy();
    return refuse(socket, answer);
  }
  upstream.setTimeout(0);
  socket.write(answer);
  // From here the bytes are the WebSocket's. A side that ends its half ends the other's; whichever
  // then does not close within a moment is cut (a session's server is its owner's code).
  const cut = () => setTimeout(() => (socket.destroy(), upstream.destroy()), HALF_CLOSE_MS).unref();
  socket.once("end", cut);
  upstream.once("end", cut);
  upstream.on("close", () => socket.destroy());
  upstream.pipe(socket);
  socket.pipe(upstream);
  // A WebSocket lives for hours: it closes once what let it open no longer holds (its owner signed out,
  // so the cookie is gone, or was disabled; the token was revoked; the session stopped or moved). A
  // database that does not answer closes nothing.
  const recheck = setInterval(() => {
    void sessionUpgradeTarget(req, deps).then((now) => {
      const moved = !(now instanceof Response) && (now.url !== target.url || now.token !== target.token);
      if (moved || (now instanceof Response && now.status !== 503)) socket.destroy();
    });
  }, deps.recheckMs ?? RECHECK_MS);
  recheck.unref();
  socket.once("close", () => clearInterval(recheck));
}

/**
 * The session's server's answer to the handshake: its header block (and whatever came with it) when it
 * switched protocols, else the refusal to send instead. Any answer but the switch is refused and the
 * connection closed: passed on, the browser's connection would stay open to the session's server for
 * more requests, past the proxy's checks.
 */
function handshakeAnswer(upstream: Socket): Promise<Buffer | Response> {
  return new Promise((resolve) => {
    let got = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      got = Buffer.concat([got, d]);
      const end = got.indexOf("\r\n\r\n");
      if (end < 0 && got.length < MAX_HANDSHAKE_BYTES) return;
      upstream.off("data", onData);
      upstream.off("close", onClose);
      upstream.pause();
      const status = /^HTTP\/1\.[01] (\d{3}) /.exec(got.toString("latin1", 0, 16))?.[1];
      resolve(status === "101" && end >= 0 ? got : notOpened(`it answered ${status ?? "something else than HTTP"}`));
    };
    const onClose = () =>
      resolve(
        upstream.bytesRead === 0
          ? errorResponse("UNAVAILABLE", "The session's server does not answer (it may be starting or stopping)")
          : notOpened("it closed the connection"),
      );
    upstream.on("data", onData);
    upstream.once("close", onClose);
  });
}

const notOpened = (why: string): Response =>
  json({ error: { code: "UNAVAILABLE", message: `The session's server did not open a WebSocket here: ${why}` } }, 502);

/** Answer the handshake with a refusal and close. */
async function refuse(socket: Duplex, res: Response): Promise<void> {
  const body = await res.text();
  if (!socket.writable) return void socket.destroy();
  socket.end(
    `HTTP/1.1 ${res.status} ${STATUS_CODES[res.status] ?? "Refused"}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

function headersOf(req: IncomingMessage): Headers {
  const h = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") h.set(k, v);
  return h;
}

function urlOf(req: IncomingMessage): URL {
  return new URL(req.url ?? "/", "http://x");
}
