// Interactive sessions on a host of their own (TRANCHE_SESSIONS_ORIGIN), through the REST handler the
// web app serves and a real Postgres: the app's address never serves a session's content, the sessions
// host serves nothing else, and the owner is handed over with a one-time ticket bound to the session,
// the owner and the browser, traded there for a cookie good for that session only. A small HTTP server
// stands in for the session's server and counts what reaches it.
import { createServer, type Server } from "node:http";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createApiToken } from "@tranche/domain";
import { handleRest } from "../src/rest";
import { makeWorld, runningSession, type World } from "./fixtures";

const APP = "http://127.0.0.1:3000";
const SESSIONS = "http://localhost:3000";
const origins = { app: APP, sessions: SESSIONS };

let w: World;
let server: Server;
let reached: string[] = [];
/** The headers of each request the session's server got. */
let seen: Record<string, string | string[] | undefined>[] = [];
let s1 = 0; // Ada's session
let s2 = 0; // another of Ada's sessions
const tokens: Record<string, string> = {};
let sessionToken = ""; // the token s1's server is told to require

beforeAll(async () => {
  w = await makeWorld("api_session_origin");
  server = createServer((req, res) => {
    reached.push(`${req.method} ${req.url}`);
    seen.push(req.headers);
    if (req.url?.endsWith("/compressed")) {
      // What Jupyter's server does for a client that accepts gzip: the length is that of the compressed body.
      const body = gzipSync("session content ".repeat(1000));
      res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip", "content-length": body.length });
      return res.end(body);
    }
    res.writeHead(200, { "content-type": "text/html", "set-cookie": "jupyter=1; Path=/" });
    res.end("<h1>session content</h1>");
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const port = (server.address() as { port: number }).port;
  const first = await runningSession(w, w.users.ada, port);
  s1 = first.id;
  sessionToken = first.token;
  s2 = (await runningSession(w, w.users.ada, port)).id;
  tokens.ada = (await createApiToken(w.db.prisma, w.users.ada, { name: "t" })).token;
  tokens.maya = (await createApiToken(w.db.prisma, w.users.maya, { name: "t" })).token;
}, 60_000);

afterAll(async () => {
  await new Promise((ok) => server?.close(ok));
  await w?.db.drop();
});

beforeEach(() => {
  reached = [];
  seen = [];
});

type Who = keyof World["users"];
interface Send {
  /** The web app's login cookie of this user (what better-auth would read). */
  login?: Who;
  cookies?: string[];
  token?: string;
  headers?: Record<string, string>;
  body?: string;
  origins?: { app: string; sessions: string | null };
}

/** One request as `next start` hands it over: the URL is always the address it listens on, the Host header says which name was used. */
async function send(host: string, method: string, path: string, o: Send = {}) {
  const headers = new Headers({ host: new URL(host).host, ...o.headers });
  const cookies = [...(o.login ? [`login=${o.login}`] : []), ...(o.cookies ?? [])];
  if (cookies.length) headers.set("cookie", cookies.join("; "));
  if (o.token) headers.set("authorization", `Bearer ${o.token}`);
  const req = new Request(APP + path, { method, headers, body: o.body });
  const res = await handleRest(req, path.split("?")[0]!.replace(/^\/api\/v1/, ""), {
    prisma: w.db.prisma,
    sessionUser: async (r) => {
      const m = /(?:^|; )login=(\w+)/.exec(r.headers.get("cookie") ?? "");
      return m ? w.users[m[1] as Who] : null;
    },
    allowedOrigins: [APP],
    origins: o.origins ?? origins,
  });
  const text = await res.text();
  return {
    status: res.status,
    location: res.headers.get("location"),
    setCookies: res.headers.getSetCookie(),
    headers: res.headers,
    text,
    message: text.startsWith("{") ? ((JSON.parse(text) as { error?: { message: string } }).error?.message ?? "") : "",
  };
}

/** What a browser sends when it opens a page. */
const nav = { "sec-fetch-mode": "navigate" };
const proxyPath = (id: number) => `/api/v1/sessions/${id}/proxy/`;
/** The path of the sessions host's cookies, and where a browser lands (Next drops a path's last slash). */
const base = (id: number) => `/api/v1/sessions/${id}/proxy`;
const pathOf = (url: string) => url.replace(/^https?:\/\/[^/]+/, "");
const cookieOf = (lines: string[], name: string) => lines.find((l) => l.startsWith(`${name}=`))?.split(";")[0] ?? "";

/** The first two steps of opening session `id` in a browser: the sessions host's state, then the app's ticket. */
async function ticketFor(id: number, who: Who = "ada", path = proxyPath(id)) {
  const start = await send(SESSIONS, "GET", path, { headers: nav });
  expect(start.status).toBe(303);
  const handoff = cookieOf(start.setCookies, "tranche-handoff");
  const open = await send(APP, "GET", pathOf(start.location!), { login: who, headers: { "sec-fetch-site": "cross-site" } });
  return { start, handoff, open, ticketUrl: open.location };
}

/** Opening session `id` as its owner, all the way: the grant cookie it ends with. */
async function openSession(id: number): Promise<string> {
  const { handoff, ticketUrl } = await ticketFor(id);
  const traded = await send(SESSIONS, "GET", pathOf(ticketUrl!), { cookies: [handoff] });
  expect(traded.status).toBe(303);
  return cookieOf(traded.setCookies, "tranche-session");
}

describe("the session proxy on the web app's own address", () => {
  it("serves no session content: its owner is sent to the sessions host, anyone else gets 404, changes are refused", async () => {
    const own = await send(APP, "GET", `${proxyPath(s1)}files/a.txt?x=1`, { login: "ada" });
    expect(own.status).toBe(303);
    expect(own.location).toBe(`${SESSIONS}${proxyPath(s1)}files/a.txt?x=1`);
    expect(own.text).not.toContain("session content");
    const byToken = await send(APP, "GET", proxyPath(s1), { token: tokens.ada });
    expect(byToken.status).toBe(303);
    const post = await send(APP, "POST", `${proxyPath(s1)}exec`, {
      token: tokens.ada,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ command: "id" }),
    });
    expect(post.status).toBe(403);
    expect(post.message).toBe(`Sessions are served at ${SESSIONS} only: send this request there`);
    expect((await send(APP, "GET", proxyPath(s1), { login: "maya" })).status).toBe(404);
    expect((await send(APP, "GET", proxyPath(s1), { token: tokens.maya })).status).toBe(404);
    expect(reached).toEqual([]);
  });

  it("refuses to serve sessions at all when no sessions host is set, naming the setting", async () => {
    const r = await send(APP, "GET", proxyPath(s1), { login: "ada", origins: { app: APP, sessions: null } });
    expect(r.status).toBe(503);
    expect(r.message).toMatch(/^Interactive sessions are not served here: .* TRANCHE_SESSIONS_ORIGIN is not set/);
    expect(reached).toEqual([]);
  });
});

describe("opening a session on the sessions host", () => {
  it("hands the owner over with a ticket and serves the session with a cookie for that session alone", async () => {
    const { start, handoff, open, ticketUrl } = await ticketFor(s1, "ada", `${proxyPath(s1)}files/?sort=name`);
    expect(start.location).toMatch(new RegExp(`^${APP}/api/v1/sessions/${s1}/open\\?state=[A-Za-z0-9_-]{43}$`));
    expect(start.setCookies[0]).toMatch(
      new RegExp(`^tranche-handoff=[^;]+; Path=${base(s1)}; Max-Age=600; HttpOnly; SameSite=Lax$`),
    );
    expect(open.status).toBe(303);
    expect(ticketUrl).toMatch(new RegExp(`^${SESSIONS}${base(s1)}\\?tranche-ticket=[A-Za-z0-9_-]{43}$`));
    expect(open.headers.get("referrer-policy")).toBe("no-referrer");

    const traded = await send(SESSIONS, "GET", pathOf(ticketUrl!), { cookies: [handoff] });
    expect(traded.status).toBe(303);
    // Back where it was going, with no ticket in the address.
    expect(traded.location).toBe(`${SESSIONS}${proxyPath(s1)}files/?sort=name`);
    const grant = traded.setCookies.find((c) => c.startsWith("tranche-session="))!;
    expect(grant).toMatch(
      new RegExp(`^tranche-session=[A-Za-z0-9_-]{43}; Path=${base(s1)}; Max-Age=43200; HttpOnly; SameSite=Lax$`),
    );
    expect(traded.setCookies).toContain(`tranche-handoff=; Path=${base(s1)}; Max-Age=0; HttpOnly; SameSite=Lax`);
    expect(reached).toEqual([]);

    const page = await send(SESSIONS, "GET", pathOf(traded.location!), { cookies: [grant.split(";")[0]!] });
    expect(page.status).toBe(200);
    expect(page.text).toBe("<h1>session content</h1>");
    expect(reached).toEqual([`GET ${proxyPath(s1)}files/?sort=name`]);
    // Its pages cannot frame or reach back into the app, and cannot set cookies on the sessions host.
    expect(page.headers.get("content-security-policy")).toBe("frame-ancestors 'self'");
    expect(page.headers.get("x-frame-options")).toBe("SAMEORIGIN");
    expect(page.headers.get("cross-origin-opener-policy")).toBe("same-origin");
    expect(page.headers.get("cross-origin-resource-policy")).toBe("same-origin");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    expect(page.setCookies).toEqual([]);
  });

  it("passes a compressed answer on whole: no length of the compressed body on the body it decoded", async () => {
    const grant = await openSession(s1);
    const r = await send(SESSIONS, "GET", `${proxyPath(s1)}compressed`, { cookies: [grant] });
    expect(r.status).toBe(200);
    expect(r.text).toBe("session content ".repeat(1000));
    const length = r.headers.get("content-length");
    if (length !== null) expect(Number(length)).toBe(Buffer.byteLength(r.text));
    expect(r.headers.get("content-encoding")).toBeNull();
  });

  it("marks the cookie Secure when the sessions host is served over https", async () => {
    const https = { app: "https://tranche.lab.example", sessions: "https://sessions.lab.example" };
    const start = await send(https.sessions, "GET", proxyPath(s1), { origins: https, headers: nav });
    expect(start.location).toMatch(/^https:\/\/tranche\.lab\.example\/api\/v1\/sessions\/\d+\/open\?state=/);
    expect(start.setCookies[0]).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
  });

  it("takes a ticket once: the second try is refused and serves nothing", async () => {
    const { handoff, ticketUrl } = await ticketFor(s1);
    expect((await send(SESSIONS, "GET", pathOf(ticketUrl!), { cookies: [handoff] })).status).toBe(303);
    const again = await send(SESSIONS, "GET", pathOf(ticketUrl!), { cookies: [handoff] });
    expect(again.status).toBe(403);
    expect(again.message).toBe("This link to a session was already used: open the session again from its page in Tranche");
    expect(again.setCookies).toEqual([]);
    expect(reached).toEqual([]);
  });

  it("takes a ticket once when two tries race: one cookie, the other refused", async () => {
    const { handoff, ticketUrl } = await ticketFor(s1);
    const tries = await Promise.all(
      Array.from({ length: 4 }, () => send(SESSIONS, "GET", pathOf(ticketUrl!), { cookies: [handoff] })),
    );
    expect(tries.map((t) => t.status).sort()).toEqual([303, 403, 403, 403]);
    expect(tries.flatMap((t) => t.setCookies).filter((c) => c.startsWith("tranche-session="))).toHaveLength(1);
  });

  it("refuses an expired ticket, and an unknown one", async () => {
    const { handoff, ticketUrl } = await ticketFor(s1);
    await w.db.prisma.sessionHandoff.updateMany({
      where: { usedAt: null },
      data: { ticketExpiresAt: new Date(Date.now() - 1000) },
    });
    const late = await send(SESSIONS, "GET", pathOf(ticketUrl!), { cookies: [handoff] });
    expect(late.status).toBe(403);
    expect(late.message).toBe("This link to a session expired (it lasts 60 s): open the session again from its page in Tranche");
    const unknown = await send(SESSIONS, "GET", `${proxyPath(s1)}?tranche-ticket=${"x".repeat(43)}`, { cookies: [handoff] });
    expect(unknown.status).toBe(401);
    expect(unknown.message).toBe(
      "This link to a session is not one Tranche issued: open the session again from its page in Tranche",
    );
    expect(late.setCookies).toEqual([]);
    expect(reached).toEqual([]);
  });

  it("binds a ticket to its session: it opens no other, even of the same owner", async () => {
    const { handoff, ticketUrl } = await ticketFor(s1);
    const other = await send(SESSIONS, "GET", pathOf(ticketUrl!).replace(`/${s1}/`, `/${s2}/`), { cookies: [handoff] });
    expect(other.status).toBe(403);
    expect(other.message).toBe(
      `This link was made for session ${s1}, not session ${s2}: open the session again from its page in Tranche`,
    );
  });

  it("binds a ticket to the browser that asked: sent to someone else, it opens nothing", async () => {
    const { ticketUrl } = await ticketFor(s1);
    const { handoff: anotherBrowser } = await ticketFor(s1);
    for (const cookies of [[], [anotherBrowser]]) {
      // A fresh ticket each time (the first try spends one).
      const url = cookies.length ? (await ticketFor(s1)).ticketUrl! : ticketUrl!;
      const r = await send(SESSIONS, "GET", pathOf(url), { cookies });
      expect(r.status).toBe(403);
      expect(r.message).toBe(
        "This link to a session was made for another browser: open the session again from its page in Tranche in this browser",
      );
    }
    expect(reached).toEqual([]);
  });

  it("issues tickets to the session's owner only; a signed-out browser is sent to sign in", async () => {
    const before = await w.db.prisma.sessionHandoff.count();
    for (const who of ["maya", "admin", "other"] as const) {
      const { open } = await ticketFor(s1, who);
      expect(open.status).toBe(404);
      expect(open.message).toBe(`You have no session ${s1}`);
    }
    expect(await w.db.prisma.sessionHandoff.count()).toBe(before);
    const signedOut = await send(APP, "GET", `/api/v1/sessions/${s1}/open?state=${"s".repeat(43)}`);
    expect(signedOut.status).toBe(303);
    expect(signedOut.location).toBe(`${APP}/login?next=%2Fjobs%2F${s1}`);
  });

  it("does not take the web app's login cookie, nor serve anything without its own", async () => {
    const navigate = await send(SESSIONS, "GET", proxyPath(s1), { login: "ada", headers: nav });
    expect(navigate.status).toBe(303); // handed over, not served
    expect(navigate.location).toMatch(new RegExp(`^${APP}/api/v1/sessions/${s1}/open\\?state=`));
    const script = await send(SESSIONS, "GET", `${proxyPath(s1)}files/`, { login: "ada", headers: { "sec-fetch-mode": "cors" } });
    expect(script.status).toBe(401);
    expect(script.message).toBe(
      `Open session ${s1} from its page in Tranche first (scripts send 'Authorization: Bearer <token>')`,
    );
    const post = await send(SESSIONS, "POST", `${proxyPath(s1)}exec`, { login: "ada", body: "{}" });
    expect(post.status).toBe(401);
    // Nor does a script with no credential at all get a redirect it cannot follow.
    expect((await send(SESSIONS, "GET", proxyPath(s1), { headers: { accept: "*/*" } })).status).toBe(401);
    expect(reached).toEqual([]);
  });

  it("serves scripts that send an API token, the owner's only", async () => {
    expect((await send(SESSIONS, "GET", proxyPath(s1), { token: tokens.ada })).status).toBe(200);
    expect((await send(SESSIONS, "GET", proxyPath(s1), { token: tokens.maya })).status).toBe(404);
    expect(reached).toEqual([`GET ${proxyPath(s1)}`]);
  });

  it("hands the session's server none of the caller's credentials, only the session's own token", async () => {
    // A session's server is its owner's code (a notebook may run anything it was given): what it is sent
    // must not sign in as its owner anywhere else.
    const grant = await openSession(s1);
    seen = [];
    const byCookie = await send(SESSIONS, "GET", `${proxyPath(s1)}files/`, {
      cookies: [grant, "better-auth.session_token=abc"],
      headers: { "x-forwarded-for": "10.0.0.1", "proxy-authorization": "Basic eA==" },
    });
    const byToken = await send(SESSIONS, "GET", proxyPath(s1), { token: tokens.ada });
    expect([byCookie.status, byToken.status]).toEqual([200, 200]);
    expect(seen).toHaveLength(2);
    for (const h of seen) {
      expect(h.authorization).toBe(`token ${sessionToken}`);
      expect(h.cookie).toBeUndefined();
      expect(h["proxy-authorization"]).toBeUndefined();
      expect(JSON.stringify(h)).not.toContain(tokens.ada!);
      expect(JSON.stringify(h)).not.toContain(grant.split("=")[1]!);
    }
  });

  it("refuses a change sent with the sessions cookie from another site", async () => {
    const grant = await openSession(s1);
    for (const headers of [{ "sec-fetch-site": "same-site" }, { origin: APP }] as Record<string, string>[]) {
      const r = await send(SESSIONS, "POST", `${proxyPath(s1)}exec`, { cookies: [grant], headers, body: "{}" });
      expect(r.status).toBe(403);
    }
    const own = await send(SESSIONS, "POST", `${proxyPath(s1)}exec`, {
      cookies: [grant],
      headers: { "sec-fetch-site": "same-origin", origin: SESSIONS },
      body: "{}",
    });
    expect(own.status).toBe(200);
    expect(reached).toEqual([`POST ${proxyPath(s1)}exec`]);
  });
});

describe("the sessions host", () => {
  it("serves no API route, whatever the credentials", async () => {
    const before = await w.counts();
    const cases: [string, string, Send][] = [
      ["GET", "/api/v1/me", { token: tokens.ada }],
      ["GET", "/api/v1/me", { login: "ada" }],
      ["GET", "/api/v1/jobs", { token: tokens.ada }],
      ["POST", "/api/v1/jobs", { token: tokens.ada, headers: { "content-type": "application/json" }, body: "{}" }],
      ["GET", "/api/v1/openapi.json", {}],
      ["GET", `/api/v1/sessions/${s1}/open?state=${"s".repeat(43)}`, { login: "ada" }],
      ["POST", `/api/v1/jobs/${s1}/cancel`, { login: "ada", headers: { origin: SESSIONS } }],
    ];
    for (const [method, path, o] of cases) {
      const r = await send(SESSIONS, method, path, o);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.message).toBe(`This address serves interactive sessions only; Tranche itself is at ${APP}`);
    }
    expect(await w.counts()).toEqual(before);
    expect((await w.db.prisma.job.findUniqueOrThrow({ where: { id: s1 } })).state).toBe("RUNNING");
  });

  it("is told apart by X-Forwarded-Host as well, as a reverse proxy sets it", async () => {
    const r = await send(APP, "GET", "/api/v1/me", { token: tokens.ada, headers: { "x-forwarded-host": "localhost:3000" } });
    expect(r.status).toBe(404);
  });
});

describe("the sessions cookie", () => {
  it("opens its own session only: another session of the same owner hands the browser over again", async () => {
    const grant = await openSession(s1);
    const other = await send(SESSIONS, "GET", proxyPath(s2), { cookies: [grant], headers: nav });
    expect(other.status).toBe(303);
    expect(other.location).toMatch(new RegExp(`/api/v1/sessions/${s2}/open\\?state=`));
    expect(reached).toEqual([]);
  });

  it("expires", async () => {
    const grant = await openSession(s1);
    await w.db.prisma.sessionHandoff.updateMany({
      where: { grantHash: { not: null } },
      data: { grantExpiresAt: new Date(Date.now() - 1000) },
    });
    const r = await send(SESSIONS, "GET", proxyPath(s1), { cookies: [grant], headers: { accept: "text/html" } });
    expect(r.status).toBe(303);
    expect(reached).toEqual([]);
  });

  it("stops working for a disabled owner", async () => {
    const grant = await openSession(s1);
    await w.db.prisma.user.update({ where: { id: w.users.ada.id }, data: { disabledAt: new Date() } });
    try {
      const r = await send(SESSIONS, "GET", proxyPath(s1), { cookies: [grant] });
      expect(r.status).toBe(403);
      expect(r.message).toBe("Your account is disabled; ask an admin to enable it");
    } finally {
      await w.db.prisma.user.update({ where: { id: w.users.ada.id }, data: { disabledAt: null } });
    }
    expect(reached).toEqual([]);
  });

  it("stops working once the session has ended", async () => {
    const grant = await openSession(s2);
    expect((await send(SESSIONS, "GET", proxyPath(s2), { cookies: [grant] })).status).toBe(200);
    await w.db.prisma.job.update({ where: { id: s2 }, data: { state: "CANCELLED", finishedAt: new Date() } });
    await w.db.prisma.runSegment.updateMany({ where: { jobId: s2 }, data: { endedAt: new Date() } });
    const r = await send(SESSIONS, "GET", proxyPath(s2), { cookies: [grant] });
    expect(r.status).toBe(409);
    expect(r.message).toBe(`Session ${s2} is cancelled: it cannot be reached`);
    expect(reached).toEqual([`GET ${proxyPath(s2)}`]);
  });
});
