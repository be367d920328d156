import type { PolicyConfig } from "./types";

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** SPEC defaults. Frozen so a caller cannot change them for everyone by accident. */
export const defaultPolicy: Readonly<PolicyConfig> = Object.freeze({
  lookbackWindow: 7 * DAY,
  projectionHorizon: 1 * HOUR,
  preemptionMargin: 0.1,
  maxMinRuntime: 8 * HOUR,
  debugMaxRuntime: 15 * MINUTE,
  debugMaxGpus: 8,
  debugMaxGpusPerUser: 8,
  gracePeriod: 120,
  unallocatedGracePeriod: 10,
  maxGracePeriod: 10 * MINUTE,
  heartbeatTimeout: 30,
  fenceGrace: 10,
  largeJobGpus: 64,
  maxReservations: 1,
  maxPreemptionSearches: 2_000,
  consolidationMinAge: 30 * MINUTE,
  debugReserve: 0.02,
  debugVictimMaxCost: 4 * HOUR,
  squattingUnprotectAfter: 0,
});

/** The SPEC defaults with some values overridden (a cluster's or a what-if view's settings). */
export function resolvePolicy(overrides: Partial<PolicyConfig> = {}): PolicyConfig {
  return { ...defaultPolicy, ...overrides };
}
