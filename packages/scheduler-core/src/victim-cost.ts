import type { JobState } from "./cluster-state";

// What preempting a victim costs, and how candidate victims and nodes compare (R3, R6).

/** GPUs a job holds on one node. */
export function gpusOn(v: JobState, node: number): number {
  let n = 0;
  const slots = v.slots;
  for (let i = 0; i < slots.length; i++) if (slots[i]!.node === node) n += slots[i]!.gpus.length;
  return n;
}

/** GPU-seconds a victim loses: since its latest start (SPEC §4 preempted GPU-hours). */
export function lostGpuSeconds(v: JobState, now: number): number {
  return v.job.gpus * Math.max(0, now - v.job.startedAt);
}

/**
 * GPU-seconds of work a victim would lose now: since its last checkpoint in this run, or since its
 * latest start when it reported none (R6, with the run's age: costOf).
 */
export function workAtRisk(v: JobState, now: number): number {
  const c = v.job.lastCheckpointAt;
  const from = c !== undefined && c !== null && c > v.job.startedAt ? c : v.job.startedAt;
  return v.job.gpus * Math.max(0, now - from);
}

/**
 * How much a second of an interruptible victim's run since its latest start weighs against a second
 * of work it would lose since its checkpoint (R6). Checkpoint recency alone picked, among victims
 * that each lose under one checkpoint interval, runs of any length: victims had run 11-57 h (median)
 * and the preempted GPU-hours since the victims' latest starts were 33-48% of capacity on 4-day
 * windows of philly-overload; at a quarter they are 20-33% (lost work +20%), and a half or an
 * eighth measured no better (docs/scheduling-model.md §7).
 */
const RUN_WEIGHT = 1 / 4;

/**
 * What choosing a victim costs, to compare victims of one tier: unallocated work (tier 0) by the
 * GPU-time since its latest start (the least preempted run); interruptible work (tier 1, fair share
 * and the debug lane) by the work it would lose since its last checkpoint plus a quarter of the
 * GPU-time since its latest start, so a victim that checkpointed recently goes first among runs of
 * similar age and the youngest run among victims that lose alike (R6).
 */
export function costOf(v: JobState, tier: number, now: number): number {
  return tier === 1 ? workAtRisk(v, now) + RUN_WEIGHT * lostGpuSeconds(v, now) : lostGpuSeconds(v, now);
}

export interface Cost {
  tier: number;
  count: number;
  /** Lowest projected ratio among interruptible victims' budgets: higher = more over-served = preferred. */
  overServed: number;
  lost: number;
  /** compareCostFirst: the unallocated victims' cost, apart from the interruptible ones' (`lost`). */
  unallocatedLost?: number;
  leftover: number;
  node: number;
}

export function compareCost(a: Cost, b: Cost): number {
  if (a.tier !== b.tier) return a.tier - b.tier;
  if (a.count !== b.count) return a.count - b.count;
  if (a.lost !== b.lost) return a.lost - b.lost;
  if (a.overServed !== b.overServed) return a.overServed > b.overServed ? -1 : 1;
  if (a.leftover !== b.leftover) return a.leftover - b.leftover;
  return a.node - b.node;
}

/**
 * The interruptible pass's order (R6): the interruptible victims' cost before their number, then the
 * unallocated victims' cost, then as compareCost.
 */
export function compareCostFirst(a: Cost, b: Cost): number {
  if (a.tier !== b.tier) return a.tier - b.tier;
  if (a.lost !== b.lost) return a.lost - b.lost;
  if (a.count !== b.count) return a.count - b.count;
  const ua = a.unallocatedLost ?? 0;
  const ub = b.unallocatedLost ?? 0;
  if (ua !== ub) return ua - ub;
  if (a.overServed !== b.overServed) return a.overServed > b.overServed ? -1 : 1;
  if (a.leftover !== b.leftover) return a.leftover - b.leftover;
  return a.node - b.node;
}

export interface Candidate {
  v: JobState;
  tier: 0 | 1;
  g: number;
  r: number;
  lost: number;
}

export function compareCandidates(a: Candidate, b: Candidate): number {
  if (a.tier !== b.tier) return a.tier - b.tier;
  if (a.g !== b.g) return b.g - a.g; // largest first: fewest victims
  if (a.lost !== b.lost) return a.lost - b.lost; // least cost first: recent checkpoint, young run (R6)
  if (a.tier === 1 && a.r !== b.r) return a.r > b.r ? -1 : 1; // most over-served first
  return a.v.job.id < b.v.job.id ? -1 : a.v.job.id > b.v.job.id ? 1 : 0;
}
