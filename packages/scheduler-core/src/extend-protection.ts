import { formatExactDuration as formatDuration } from "./format";

/**
 * Extending a running job's protection (issue 14: a session's "extend"): a new contract whose
 * minRuntime covers the extra time, charged to the budget like the rest of the run.
 *
 * The extension starts where the protection ends now, or now if it has already ended, so `by` is
 * always time the owner gets from here on. The new minRuntime (new end - start of the run) obeys the
 * same cap as at submit (the cluster's maxMinRuntime) and never outlasts the job's maxRuntime. A run on
 * unallocated GPUs is free and never protected (R3): there is nothing to extend. Times are Unix seconds.
 */
export type ExtendProtectionResult =
  | { ok: true; minRuntime: number; protectedUntil: number; from: number }
  | { ok: false; code: "NOT_PROTECTED" | "OVER_CAP" | "OVER_MAX_RUNTIME"; sentence: string };

export function extendProtection(
  run: { startedAt: number; minRuntime: number; maxRuntime: number | null; charged: boolean },
  by: number,
  now: number,
  cap: number,
): ExtendProtectionResult {
  if (!run.charged)
    return {
      ok: false,
      code: "NOT_PROTECTED",
      sentence: "It runs on unallocated GPUs, free and never protected: there is no protection to extend.",
    };
  const from = Math.max(now, run.startedAt + run.minRuntime);
  const protectedUntil = from + by;
  const minRuntime = protectedUntil - run.startedAt;
  if (minRuntime > cap) {
    const room = Math.max(0, run.startedAt + cap - from);
    return {
      ok: false,
      code: "OVER_CAP",
      sentence:
        `Protection lasts at most ${formatDuration(cap)} after a start on this cluster; ` +
        (room > 0
          ? `it can be extended by at most ${formatDuration(room)}, not ${formatDuration(by)}.`
          : `this run has reached it, so it cannot be extended.`),
    };
  }
  if (run.maxRuntime !== null && minRuntime > run.maxRuntime)
    return {
      ok: false,
      code: "OVER_MAX_RUNTIME",
      sentence: `It is stopped after its maximum runtime of ${formatDuration(run.maxRuntime)}: protection cannot outlast it.`,
    };
  return { ok: true, minRuntime, protectedUntil, from };
}
