import { LIMITS, formatBytes, readBodyText } from "@tranche/contracts";
import type { PrismaClient } from "@tranche/db";
import { openSignInGate, type SignInLimits, type SignInOutcome } from "@tranche/domain";
import { clientAddress, type Net } from "./client-address";
import { issueDeviceCookie, trustedDevice, type DeviceCookies } from "./device-cookie";

export interface AuthRouteDeps {
  /** better-auth's request handler. */
  handler: (req: Request) => Promise<Response>;
  prisma: PrismaClient;
  /** null: no sign-in limits (TRANCHE_AUTH_RATE_LIMIT=off, the e2e stack). */
  limits: SignInLimits | null;
  /** TRANCHE_TRUSTED_PROXIES as parsed by parseTrustedProxies. */
  trustedProxies: Net[];
  /** Device cookies: a browser that signed in to an account is limited on its own (device-cookie.ts). */
  deviceCookies: DeviceCookies;
}

function emailOf(body: string, contentType: string): string | null {
  try {
    const email = contentType.includes("application/x-www-form-urlencoded")
      ? new URLSearchParams(body).get("email")
      : (JSON.parse(body) as { email?: unknown }).email;
    return typeof email === "string" && email.trim() ? email : null;
  } catch {
    return null;
  }
}

function outcomeOf(status: number): SignInOutcome {
  if (status >= 200 && status < 300) return "success";
  return status === 401 ? "failure" : "not-a-guess";
}

/**
 * The session token travels only in the HttpOnly cookie: drop it from the JSON of sign-in and
 * get-session, so a script running in the page cannot read it.
 */
async function withoutToken(res: Response): Promise<Response> {
  if (!res.ok || !(res.headers.get("content-type") ?? "").includes("application/json")) return res;
  const body = (await res.json()) as { token?: unknown; session?: { token?: unknown } } | null;
  if (body && typeof body === "object") {
    delete body.token;
    if (body.session && typeof body.session === "object") delete body.session.token;
  }
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify(body), { status: res.status, statusText: res.statusText, headers });
}

function withCookie(res: Response, setCookie: string): Response {
  const headers = new Headers(res.headers);
  headers.append("set-cookie", setCookie);
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}

/**
 * /api/auth/*: hands the request to better-auth with the real client address (never a client's own
 * header) and, for password sign-ins, behind the failure limits per device cookie, per account and per
 * address; a successful password sign-in gets a device cookie.
 */
export async function handleAuthRequest(req: Request, deps: AuthRouteDeps): Promise<Response> {
  const address = clientAddress(req.headers, deps.trustedProxies);
  const headers = new Headers(req.headers);
  headers.delete("x-tranche-client-address");
  if (address) headers.set("x-tranche-client-address", address);
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  // Read here, bounded: whoever calls is not signed in yet, and better-auth would read a body whole.
  const body = hasBody ? await readBodyText(req, LIMITS.signedOutRequestBytes) : undefined;
  if (body === null)
    return Response.json(
      {
        code: "PAYLOAD_TOO_LARGE",
        message: `The request body is larger than ${formatBytes(LIMITS.signedOutRequestBytes)}, the most a sign-in request takes; nothing was done`,
      },
      { status: 413, headers: { "cache-control": "no-store" } },
    );
  const forwarded = new Request(req.url, { method: req.method, headers, body, signal: req.signal });
  const path = new URL(req.url).pathname;
  const isPasswordSignIn = req.method === "POST" && path.endsWith("/sign-in/email");

  if (!isPasswordSignIn || !deps.limits) {
    const res = await deps.handler(forwarded);
    return isPasswordSignIn || path.endsWith("/get-session") ? withoutToken(res) : res;
  }
  const email = emailOf(body ?? "", req.headers.get("content-type") ?? "");
  const device = trustedDevice(deps.deviceCookies, req.headers.get("cookie"), email);
  const gate = await openSignInGate(deps.prisma, { email, address, device }, deps.limits);
  if (!gate.ok) {
    const retryAfter = Math.max(1, Math.ceil((gate.retryAt.getTime() - Date.now()) / 1000));
    return Response.json(
      { code: "TOO_MANY_FAILED_SIGN_INS", message: gate.message, retryAt: gate.retryAt.toISOString() },
      { status: 429, headers: { "retry-after": String(retryAfter), "cache-control": "no-store" } },
    );
  }
  let res: Response;
  try {
    res = await deps.handler(forwarded);
  } catch (e) {
    await gate.settle("not-a-guess");
    throw e;
  }
  const outcome = outcomeOf(res.status);
  await gate.settle(outcome);
  // A new cookie on every success (a year from now), so a browser in use stays trusted.
  return outcome === "success" && email
    ? withCookie(await withoutToken(res), issueDeviceCookie(deps.deviceCookies, email))
    : withoutToken(res);
}
