import type { PrismaClient } from "@tranche/db";
import { wholeNumberFromEnv } from "../env-number";

type Env = Record<string, string | undefined>;

/**
 * Password guessing limits. Only failures count: a sign-in reserves one failure on its account and on
 * its client address before the password is checked (so a burst of parallel guesses cannot all slip
 * past the check) and gives the reservation back when the password was right. A key that collects
 * `maxFailures` failures within `windowSec` is refused for `windowSec` from the next attempt.
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
  const sec = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
  const inWords = sec < 90 ? `${sec} s` : `${Math.ceil(sec / 60)} min`;
  return `in ${inWords} (at ${until.toISOString().slice(11, 16)} UTC)`;
}

/**
 * Open the gate for one password sign-in. When it is refused, the message says why and when to try
 * again. When allowed, call `settle` with the outcome: "success" clears the account's failures,
 * "not-a-guess" (a malformed request) gives both reservations back, "failure" keeps them.
 */
export async function openSignInGate(
  prisma: PrismaClient,
  who: { email: string | null; address: string | null },
  limits: SignInLimits,
  now: Date = new Date(),
): Promise<SignInGate> {
  const address = addressKey(who.address);
  const addressLock = await reserve(prisma, address, limits.address, now);
  if (addressLock)
    return {
      ok: false,
      retryAt: addressLock,
      message: `Too many failed sign-ins from your network address; try again ${waitWords(addressLock, now)}.`,
    };
  const account = who.email ? accountKey(who.email) : null;
  const accountLock = account ? await reserve(prisma, account, limits.account, now) : null;
  if (accountLock) {
    await giveBack(prisma, address);
    return {
      ok: false,
      retryAt: accountLock,
      message: `This account is locked after ${limits.account.maxFailures} failed sign-ins; try again ${waitWords(accountLock, now)}.`,
    };
  }
  return {
    ok: true,
    async settle(outcome) {
      if (outcome === "failure") return;
      await giveBack(prisma, address);
      if (!account) return;
      if (outcome === "success") await prisma.signInFailure.deleteMany({ where: { key: account, lockedUntil: null } });
      else await giveBack(prisma, account);
    },
  };
}
