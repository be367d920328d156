import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Device cookies (OWASP, "Slow Down Online Guessing Attacks with Device Cookies"): a browser that
 * signed in to an account gets a cookie naming that account, signed by the server, so its later
 * password sign-ins are limited on their own and not by the account's lock (sign-in-limits.ts).
 *
 * The value is `<nonce>.<issued, seconds>.<mac>`, the mac an HMAC of the account's e-mail, the nonce
 * and the issue time. The e-mail is not in the cookie: the mac is checked against the e-mail of the
 * sign-in, so a cookie of one account vouches for no other, and a cookie changed in any part vouches
 * for nothing. Nothing is stored; a cookie counts failures under sha256 of its value.
 */

/** A year: how long the browser keeps it and the server accepts it. */
export const DEVICE_COOKIE_MAX_AGE_SEC = 365 * 24 * 60 * 60;

export interface DeviceCookies {
  key: Buffer;
  /** Served over https: the cookie is Secure (and named so browsers keep it from plain http). */
  secure: boolean;
}

/** The device-cookie key, from the app's secret (BETTER_AUTH_SECRET) and the public URL. */
export function deviceCookies(secret: string, publicUrl: string): DeviceCookies {
  // A key of its own, so no device cookie's mac is also a valid signature of anything better-auth signs.
  const key = createHmac("sha256", secret).update("tranche device cookie").digest();
  return { key, secure: publicUrl.startsWith("https://") };
}

export const deviceCookieName = (c: DeviceCookies) => (c.secure ? "__Secure-tranche.device" : "tranche.device");

const macOf = (c: DeviceCookies, email: string, nonce: string, issued: string) =>
  createHmac("sha256", c.key).update(`${email.trim().toLowerCase()}\n${nonce}\n${issued}`).digest();

/** The Set-Cookie value that trusts this browser for `email` for a year. */
export function issueDeviceCookie(c: DeviceCookies, email: string, now: Date = new Date()): string {
  const nonce = randomBytes(16).toString("base64url");
  const issued = String(Math.floor(now.getTime() / 1000));
  const value = `${nonce}.${issued}.${macOf(c, email, nonce, issued).toString("base64url")}`;
  // Only the sign-in route needs it; Strict, since the sign-in page posts from this site.
  const attrs = [`Max-Age=${DEVICE_COOKIE_MAX_AGE_SEC}`, "Path=/api/auth", "HttpOnly", "SameSite=Strict"];
  if (c.secure) attrs.push("Secure");
  return [`${deviceCookieName(c)}=${value}`, ...attrs].join("; ");
}

function valid(c: DeviceCookies, value: string, email: string, now: Date): boolean {
  const [nonce, issued, mac, ...rest] = value.split(".");
  if (rest.length || !nonce || !issued || !mac || !/^\d{1,12}$/.test(issued)) return false;
  const age = now.getTime() / 1000 - Number(issued);
  if (age < -60 || age > DEVICE_COOKIE_MAX_AGE_SEC) return false;
  const given = Buffer.from(mac, "base64url");
  const expected = macOf(c, email, nonce, issued);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The id a device cookie of the request counts its failures under, when one is valid for `email`;
 * else null (no cookie, another account's, expired, or altered: an untrusted browser).
 */
export function trustedDevice(
  c: DeviceCookies,
  cookieHeader: string | null,
  email: string | null,
  now: Date = new Date(),
): string | null {
  if (!cookieHeader || !email) return null;
  const prefix = `${deviceCookieName(c)}=`;
  for (const part of cookieHeader.split(";")) {
    const pair = part.trim();
    if (!pair.startsWith(prefix)) continue;
    const value = pair.slice(prefix.length);
    if (valid(c, value, email, now)) return createHash("sha256").update(value).digest("hex");
  }
  return null;
}
