/**
 * Public types of the scheduling core (SPEC §2-§5).
 *
 * Conventions (they make sums exact and cycles reproducible):
 * - Times are integer seconds on one clock chosen by the caller (the worker uses Unix seconds, the
 *   simulator virtual seconds). The core never reads a clock: `now` is an argument.
 * - Durations are integer seconds. GPU time is integer GPU-seconds.
 * - Allocations are integer ppm (parts per million) of the parent's allocation, so "siblings sum
 *   to at most 1" is `sum <= 1_000_000`, checked exactly.
 * - Ratios are plain numbers; `Infinity` means "no entitlement" (JSON.stringify writes it as null).
 * - Arrays in inputs are read in the order given only where it cannot change a decision; every
 *   decision uses explicit tie-breaks (ids, names), so shuffling an input array yields the same
 *   result (R11).
 *
 * The files re-exported here (states-and-codes.ts, policy-config.ts, snapshot.ts and window-inputs.ts
 * the input side, cycle-result.ts the output side) are the stable contract shared with the worker,
 * the simulator and the web what-if view: changes are additive only.
 */
export type * from "./cycle-result";
export * from "./states-and-codes";
export type * from "./policy-config";
export type * from "./snapshot";
export type * from "./window-inputs";

/** Validation outcome shared by the API, the CLI and the trace importers (SPEC §6). */
export type ValidationResult =
  | { ok: true }
  /** `fields`: each error's input field (gpus, minRuntime, ...), where it has one (a job's contract). */
  | { ok: false; errors: string[]; fields?: string[] };
