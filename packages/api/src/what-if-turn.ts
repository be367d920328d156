import { createWhatIfLimiter, whatIfLimitsFromEnv, type WhatIfLimiter } from "@tranche/domain";
import { TooManyRequests } from "./too-many-requests";

let shared: WhatIfLimiter | null = null;

/**
 * Runs one what-if preview for a person under this web process's limit (TRANCHE_WHAT_IF_PER_MINUTE;
 * a test brings its own limiter): one at a time and a few a minute, for the budgets page (tRPC) and
 * REST alike. Past it, TooManyRequests with when to try again; the transport answers 429.
 */
export async function inWhatIfTurn<T>(limiter: WhatIfLimiter | undefined, userId: string, run: () => Promise<T>): Promise<T> {
  const turn = (limiter ?? (shared ??= createWhatIfLimiter(whatIfLimitsFromEnv()))).begin(userId);
  if (!turn.ok) throw new TooManyRequests(turn.message, turn.retryAfterSec);
  try {
    return await run();
  } finally {
    turn.done();
  }
}
