import { plural } from "@tranche/scheduler-core/format";
import { wholeNumberFromEnv } from "../env-number";

type Env = Record<string, string | undefined>;

/**
 * A what-if preview runs two full scheduling cycles in the web process, so each person gets one at a
 * time and at most `perMinute` within any 60 s (0: no cap per minute). The count is kept in memory:
 * the limit guards the CPU of the process that does the work, so a second web replica keeps its own.
 */
export interface WhatIfLimits {
  perMinute: number;
}

export const DEFAULT_WHAT_IF_LIMITS: WhatIfLimits = { perMinute: 6 };

/** Seconds a refused caller is told to wait when its previous preview has not finished yet. */
const BUSY_RETRY_SEC = 2;
const WINDOW_MS = 60_000;

export function whatIfLimitsFromEnv(env: Env = process.env): WhatIfLimits {
  const perMinute = DEFAULT_WHAT_IF_LIMITS.perMinute;
  return { perMinute: wholeNumberFromEnv(env, "TRANCHE_WHAT_IF_PER_MINUTE", perMinute, { min: 0, what: " (0 for no cap)" }) };
}

export type WhatIfTurn = { ok: true; done(): void } | { ok: false; message: string; retryAfterSec: number };

export interface WhatIfLimiter {
  /** Take a turn for `userId`; call `done` when the preview has finished, failed or not. */
  begin(userId: string): WhatIfTurn;
}

/** `nowMs` is the clock (tests move it by hand). */
export function createWhatIfLimiter(limits: WhatIfLimits, nowMs: () => number = () => Date.now()): WhatIfLimiter {
  const running = new Set<string>();
  const starts = new Map<string, number[]>();
  return {
    begin(userId) {
      if (running.has(userId))
        return {
          ok: false,
          retryAfterSec: BUSY_RETRY_SEC,
          message: "Your previous what-if preview is still running; wait for it to finish, then try again.",
        };
      const now = nowMs();
      const recent = (starts.get(userId) ?? []).filter((t) => t > now - WINDOW_MS);
      if (limits.perMinute > 0 && recent.length >= limits.perMinute) {
        starts.set(userId, recent);
        const retryAfterSec = Math.max(1, Math.ceil((recent[0]! + WINDOW_MS - now) / 1000));
        return {
          ok: false,
          retryAfterSec,
          message: `You have run ${plural(limits.perMinute, "what-if preview")} in the last minute, the most one person may; try again in ${retryAfterSec} s.`,
        };
      }
      recent.push(now);
      starts.set(userId, recent);
      running.add(userId);
      let finished = false;
      return {
        ok: true,
        done() {
          if (finished) return;
          finished = true;
          running.delete(userId);
          // Forget people whose starts have all left the window, so the map does not grow for ever.
          for (const [id, list] of starts) if (!running.has(id) && list.every((t) => t <= nowMs() - WINDOW_MS)) starts.delete(id);
        },
      };
    },
  };
}
