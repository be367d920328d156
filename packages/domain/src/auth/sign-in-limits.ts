import type { PrismaClient } from "@tranche/db";
import { wholeNumberFromEnv } from "../env-number";

type Env = Record<string, string | undefined>;

/**
 * Password guessing limits. Only failures count: a sign-in reserves one failure on its keys before the
 * password is checked (so a burst of parallel guesses cannot all slip past the check) and gives the
 * reservation back when the password was right. A key that collects `maxFailures` failures within
 * `windowSec` is refused for `windowSec` from the next attempt. `account` is the rule for each device
 * cookie and for the account's untrusted browsers (openSignInGate); `address`, for each client address.
 */
export interface SignInLimits {
  account: { maxFailures: number; windowSec: number };
  address: { maxFailures: number; windowSec: number };
}

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = {
  account: { maxFailures: 5, windowSec: 15 * 60 },
  address: { maxFailures: 20, windowSec: 10 * 60 },
};

const positiveInt = (env: Env, name: string, fallback: number): number =>
  wholeNumberFromEnv(env, name, fallback, { min: 1, what: " of at least 1" });

/** The limits from the environment, or null when TRANCHE_AUTH_RATE_LIMIT=off (the e2e stack). */
export function signInLimitsFromEnv(env: Env = process.env): SignInLimits | null {
  if (env.TRANCHE_AUTH_RATE_LIMIT === "off") return null;
  const d = DEFAULT_SIGN_IN_LIMITS;
  return {
    account: {
      maxFailures: positiveInt(env, "TRANCHE_SIGNIN_MAX_FAILURES", d.account.maxFailures),
      windowSec: positiveInt(env, "TRANCHE_SIGNIN_LOCKOUT_MINUTES", d.account.windowSec / 60) * 60,
    },
    address: {
      maxFailures: positiveInt(env, "TRANCHE_SIGNIN_MAX_FAILURES_PER_ADDRESS", d.address.maxFailures),
      windowSec: d.address.windowSec,
    },
  };
}

export type SignInOutcome = "success" | "failure" | "not-a-guess";

export type SignInGate =
  { ok: true; settle(outcome: SignInOutcome): Promise<void> } | { ok: false; message: string; retryAt: Date };

const accountKey = (email: string) => `account:${email.trim().toLowerCase()}`;
const addressKey = (address: string | null) => `address:${address ?? "unknown"}`;
const deviceKey = (id: string) => `device:${id}`;

/** Reserve one failure on `key`; null when allowed, else the time the key is refused until. */
async function reserve(
  prisma: PrismaClient,
  key: string,
  rule: { maxFailures: number; windowSec: number },
  now: Date,
): Promise<Date | null> {
  const windowStart = new Date(now.getTime() - rule.windowSec * 1000);
  const lockUntil = new Date(now.getTime() + rule.windowSec * 1000);
  // One statement, so concurrent attempts each see their own count.
  const rows = await prisma.$queryRaw<{ failures: number; lockedUntil: Date | null }[]>`
    INSERT INTO sign_in_failure (key, failures, "windowStart") VALUES (${key}, 1, ${now})
    ON CONFLICT (key) DO UPDATE SET
      failures = CASE
        WHEN sign_in_failure."lockedUntil" > ${now} THEN sign_in_failure.failures
        WHEN sign_in_failure."windowStart" <= ${windowStart} OR sign_in_failure."lockedUntil" IS NOT NULL THEN 1
        ELSE sign_in_failure.failures + 1 END,
      "windowStart" = CASE
        WHEN sign_in_failure."lockedUntil" > ${now} THEN sign_in_failure."windowStart"
        WHEN sign_in_failure."windowStart" <= ${windowStart} OR sign_in_failure."lockedUntil" IS NOT NULL THEN ${now}
        ELSE sign_in_failure."windowStart" END,
      "lockedUntil" = CASE WHEN sign_in_failure."lockedUntil" > ${now} THEN sign_in_failure."lockedUntil" END
    RETURNING failures, "lockedUntil"`;
  const row = rows[0]!;
  if (row.lockedUntil) return row.lockedUntil;
  if (row.failures <= rule.maxFailures) return null;
  await prisma.$executeRaw`UPDATE sign_in_failure SET "lockedUntil" = ${lockUntil} WHERE key = ${key}`;
  return lockUntil;
}

async function giveBack(prisma: PrismaClient, key: string): Promise<void> {
  await prisma.$executeRaw`
    UPDATE sign_in_failure SET failures = GREATEST(failures - 1, 0) WHERE key = ${key} AND "lockedUntil" IS NULL`;
}

function waitWords(until: Date, now: Date): string {
  return `in ${minutesOrSeconds(until, now)} (at ${clock(until)} UTC)`;
}

function untilWords(until: Date, now: Date): string {
  return `until ${clock(until)} UTC (in ${minutesOrSeconds(until, now)})`;
}

function minutesOrSeconds(until: Date, now: Date): string {
  const sec = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
  return sec < 90 ? `${sec} s` : `${Math.ceil(sec / 60)} min`;
}

const clock = (d: Date) => d.toISOString().slice(11, 16);

const ELSEWHERE = "A browser you have signed in with before still works.";

/**
 * An open gate holding one reserved failure on each of `keys`. On "success" the failures of
 * `clearedOnSuccess` go (the right password was given for it) and the other reservations come back;
 * "not-a-guess" (a malformed request) gives every reservation back; "failure" keeps them.
 */
function opened(prisma: PrismaClient, keys: string[], clearedOnSuccess: string | null): SignInGate {
  return {
    ok: true,
    async settle(outcome) {
      if (outcome === "failure") return;
      for (const key of keys) {
        if (outcome === "success" && key === clearedOnSuccess)
          await prisma.signInFailure.deleteMany({ where: { key, lockedUntil: null } });
        else await giveBack(prisma, key);
      }
    },
  };
}

/**
 * Open the gate for one password sign-in. When it is refused, the message says why and until when.
 *
 * `device` is the id of a device cookie the web app has checked is valid for this account: a browser
 * that signed in to it before (OWASP's "device cookies"). Such an attempt counts only on its own
 * device key, with the account rule, and is refused only when that key is locked, so nobody can lock
 * a person out of their usual browser by guessing wrong passwords elsewhere. Every other attempt is
 * untrusted: it counts on the account's key and on its client address, and is refused when either is
 * locked; a lock of those stops only browsers the account never signed in with.
 */
export async function openSignInGate(
  prisma: PrismaClient,
  who: { email: string | null; address: string | null; device?: string | null },
  limits: SignInLimits,
  now: Date = new Date(),
): Promise<SignInGate> {
  if (who.email && who.device) {
    const device = deviceKey(who.device);
    const deviceLock = await reserve(prisma, device, limits.account, now);
    if (deviceLock)
      return {
        ok: false,
        retryAt: deviceLock,
        message: `Sign-in from this browser is paused ${untilWords(deviceLock, now)} after ${limits.account.maxFailures} failed sign-ins here.`,
      };
    return opened(prisma, [device], device);
  }
  const address = addressKey(who.address);
  const addressLock = await reserve(prisma, address, limits.address, now);
  if (addressLock)
    return {
      ok: false,
      retryAt: addressLock,
      message: `Too many failed sign-ins from your network address; try again ${waitWords(addressLock, now)}. ${ELSEWHERE}`,
    };
  const account = who.email ? accountKey(who.email) : null;
  const accountLock = account ? await reserve(prisma, account, limits.account, now) : null;
  if (accountLock) {
    await giveBack(prisma, address);
    return {
      ok: false,
      retryAt: accountLock,
      message:
        `Sign-in to this account from this browser is paused ${untilWords(accountLock, now)}: it had ` +
        `${limits.account.maxFailures} failed sign-ins from browsers it was not signed in with before. ${ELSEWHERE}`,
    };
  }
  return opened(prisma, account ? [address, account] : [address], account);
}
