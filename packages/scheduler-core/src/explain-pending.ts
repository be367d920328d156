import { formatDuration, formatPercent, formatWhen, lineText, plural, shareUsedText, type RatioWindow } from "./format";
import { heldWords } from "./held-words";
import { defaultPolicy } from "./policy";
import type { PendingReason, PendingReasonCode, PendingReasonDetails } from "./types";

/**
 * R10: one reason per pending job, with its numbers and one deterministic sentence.
 *
 * The code is chosen at the decision point by one precedence, documented and decided in
 * cycle/reason-precedence.ts; this file only words it.
 */
export interface ReasonInput {
  code: PendingReasonCode;
  budgetPath: string;
  /** Who the sentence names: the user's display name, else their id. */
  userId: string;
  now: number;
  details: PendingReasonDetails;
  /** The job's id, for the command a sentence names (a job whose node lists leave it no node). */
  jobId?: string;
}

function sizeText(gpus: number, nodeSize: number): string {
  if (nodeSize > 0 && gpus > nodeSize) return `${gpus} GPUs on ${plural(Math.ceil(gpus / nodeSize), "whole node")}`;
  return `${plural(gpus, "GPU")} on one node`;
}

/** "it needs 16 GPUs on 2 whole nodes, and the largest free block is 3 GPUs on one node". */
function needText(d: PendingReasonDetails, nodeSize: number): string {
  const free =
    d.largestFreeGpus > 0 ? `the largest free block is ${plural(d.largestFreeGpus, "GPU")} on one node` : "no GPU is free";
  return `it needs ${sizeText(d.gpus, nodeSize)}, and ${free}`;
}

/** The budget and what its projected ratio (usage + held GPUs, which orders the queue) means. */
const budgetText = (path: string, ratio: number, w: RatioWindow): string => `budget ${path}, which ${shareUsedText(ratio, w)}`;

/** `w`: the policy's lookback window and projection horizon, which the ratios are over (in the sentence's words). */
export function explainPending(input: ReasonInput, nodeSize: number, w: RatioWindow = defaultPolicy): PendingReason {
  return {
    code: input.code,
    sentence: sentenceFor(input, nodeSize, positionText(input.details), w),
    details: input.details,
  };
}

const positionText = (d: PendingReasonDetails): string => (d.position === null ? "not in line this cycle" : lineText(d.position));

const POSITION_MARK = "\u0000";

/** Sentences around the position, shared by the jobs with the same numbers (see PendingExplainer). */
interface SentenceGroup {
  code: PendingReasonCode;
  ratio: number;
  gpus: number;
  largestFreeGpus: number;
  earliestStart: number | null;
  reservedForJobId: string | undefined;
  reservedFrom: number | undefined;
  margin: number | undefined;
  victimRatio: number | undefined;
  before: string;
  after: string;
}

/** Groups kept per budget before falling back to a string key (bounds the linear scan). */
const MAX_GROUPS_PER_BUDGET = 64;

/**
 * explainPending for a whole cycle: many pending jobs share every number but their position (same
 * budget, size and ratio), so the sentence around the position is built once per such group. Same
 * sentences, far less garbage with 10,000 pending jobs. One instance per cycle.
 *
 * Groups are found per budget path by comparing the numbers directly (no key string per job, which
 * would format a float for every pending job); a budget with very many groups uses a string key.
 */
export class PendingExplainer {
  private readonly groups = new Map<string, SentenceGroup[]>();
  private readonly overflow = new Map<string, SentenceGroup>();

  constructor(
    private readonly nodeSize: number,
    private readonly ratioWindow: RatioWindow = defaultPolicy,
  ) {}

  /** Just the sentence: runCycle fills it into the reason object it already made. */
  sentence(
    code: PendingReasonCode,
    budgetPath: string,
    userId: string,
    now: number,
    d: PendingReasonDetails,
    jobId?: string,
  ): string {
    if (
      d.position === null ||
      (code === "NODE_CONSTRAINT" && d.problem !== undefined) ||
      code === "PLANNED_DRAIN" ||
      code === "ORDER" ||
      code === "HELD" ||
      code === "INVALID_CONTRACT" ||
      code === "DEBUG_USER_CAP" ||
      code === "ARRAY_LIMIT" ||
      code === "USER_LIMIT"
    )
      return sentenceFor({ code, budgetPath, userId, now, details: d, jobId }, this.nodeSize, positionText(d), this.ratioWindow);
    const group = this.groupFor(code, budgetPath, userId, now, d);
    return `${group.before}${lineText(d.position)}${group.after}`;
  }

  private groupFor(
    code: PendingReasonCode,
    budgetPath: string,
    userId: string,
    now: number,
    d: PendingReasonDetails,
  ): SentenceGroup {
    let list = this.groups.get(budgetPath);
    if (list === undefined) {
      list = [];
      this.groups.set(budgetPath, list);
    }
    for (let k = 0; k < list.length; k++) {
      const g = list[k]!;
      if (
        g.code === code &&
        g.ratio === d.ratio &&
        g.gpus === d.gpus &&
        g.largestFreeGpus === d.largestFreeGpus &&
        g.earliestStart === d.earliestStart &&
        g.reservedForJobId === d.reservedForJobId &&
        g.reservedFrom === d.reservedFrom &&
        g.margin === d.margin &&
        g.victimRatio === d.victimRatio
      )
        return g;
    }
    let key: string | null = null;
    if (list.length >= MAX_GROUPS_PER_BUDGET) {
      key = `${code}|${budgetPath}|${d.ratio}|${d.gpus}|${d.largestFreeGpus}|${d.earliestStart}|${d.reservedForJobId}|${d.reservedFrom}|${d.margin}|${d.victimRatio}`;
      const found = this.overflow.get(key);
      if (found) return found;
    }
    const whole = sentenceFor({ code, budgetPath, userId, now, details: d }, this.nodeSize, POSITION_MARK, this.ratioWindow);
    const at = whole.indexOf(POSITION_MARK);
    const group: SentenceGroup = {
      code,
      ratio: d.ratio,
      gpus: d.gpus,
      largestFreeGpus: d.largestFreeGpus,
      earliestStart: d.earliestStart,
      reservedForJobId: d.reservedForJobId,
      reservedFrom: d.reservedFrom,
      margin: d.margin,
      victimRatio: d.victimRatio,
      before: whole.slice(0, at),
      after: whole.slice(at + POSITION_MARK.length),
    };
    if (key === null) list.push(group);
    else this.overflow.set(key, group);
    return group;
  }
}

function sentenceFor(input: ReasonInput, nodeSize: number, pos: string, w: RatioWindow): string {
  const d = input.details;
  const budget = budgetText(input.budgetPath, d.ratio, w);
  switch (input.code) {
    case "HELD":
      if (d.heldByRole !== undefined && d.heldAt !== undefined && input.jobId !== undefined)
        return `${heldWords({ byName: d.heldByName ?? "", byRole: d.heldByRole, at: d.heldAt }, input.now, input.jobId)} (${budget}).`;
      return `Held by its owner or an operator: it will not start until released (${budget}).`;
    case "INVALID_CONTRACT":
      return `Cannot run here: ${d.problem ?? "its contract does not fit this cluster"}.`;
    case "CLUSTER_DRAINING":
      return `The cluster's ready nodes cannot hold it: ${needText(d, nodeSize)} there; the other nodes are draining, cordoned, in repair or down (${pos}, ${budget}).`;
    case "DEBUG_USER_CAP":
      return `Debug lane cap: user ${input.userId} already holds ${plural(d.userDebugGpus ?? 0, "debug GPU")} of the ${d.debugCap ?? 0} allowed per person, and this job needs ${d.gpus} more (${pos}).`;
    case "DEPENDENCY":
      return `Waiting for ${dependencyList(d)} before it can start; it joins the queue only then (${budget}).`;
    case "DEPENDENCY_NEVER_SATISFIED":
      return `Will never start: ${neverList(d)}. Cancel it, or change its dependencies where it waits, keeping its submit time: tranche depend with this job's id, and no --after to drop them all (${budget}).`;
    case "ARRAY_LIMIT":
      return `Array limit: ${plural(d.arrayRunning ?? 0, "task")} of array ${d.arrayId ?? "?"} ${(d.arrayRunning ?? 0) === 1 ? "is" : "are"} running, the most the array allows at once (${d.arrayMaxRunning ?? 0}); this task starts when one of them ends (${pos}).`;
    case "USER_LIMIT":
      // A job larger than the limit waits for the limit itself: no end of the user's other jobs helps.
      if (d.gpus > (d.userLimit ?? Infinity))
        return `Per-user limit: this job needs ${plural(d.gpus, "GPU")}, more than the ${d.userLimit} per person that the managers of budget ${input.budgetPath} allow, so it cannot start until they raise the limit (${pos}).`;
      return `Per-user limit: ${input.userId} already holds ${plural(d.userGpus ?? 0, "GPU")} in budget ${input.budgetPath}, whose managers allow ${d.userLimit ?? 0} per person, and this job needs ${d.gpus} more (${pos}).`;
    case "NO_ENTITLEMENT":
      return `Budget ${input.budgetPath} has no share of this cluster, so this job runs only as unallocated work, on GPUs no allocated job can use; ${needText(d, nodeSize)} (${pos}).`;
    case "NODE_CONSTRAINT":
      // A node it named was retired (or removed) since it was submitted: no wait ends it.
      if (d.problem !== undefined)
        return `Will never start as its node lists stand: ${d.problem}. Change them (tranche update ${input.jobId ?? "with this job's id"} --nodelist with nodes in service, or --nodelist none to run on any node), or cancel it (${budget}).`;
      return `It may run only on the nodes it was submitted for (its node list, less the nodes it excludes), and none of them can take it now, while other nodes could; ${needText(d, nodeSize)} (${pos}, ${budget}).`;
    case "PLANNED_DRAIN":
      return `${plannedDrainWords(d, input.now)}; ${needText(d, nodeSize)} (${pos}, ${budget}).`;
    case "RESERVED_FOR":
      return `The free GPUs it fits on are reserved for job ${d.reservedForJobId ?? "?"}, which can start there ${reservedTail(d.reservedFrom ?? input.now, input.now)} (${pos}, ${budget}).`;
    case "DEBUG_RESERVE":
      return `It fits on free GPUs, but they are among the ${plural(d.debugReserveGpus ?? 0, "GPU")} kept free on the emptiest nodes for short debug jobs; it starts when other GPUs free up (${pos}, ${budget}).`;
    case "ORDER":
      return `Waiting its turn: ${plural(d.jobsAhead, "job")} ahead of it in line took the GPUs that were free at the start of this cycle (${pos}, ${budget}).`;
    case "BUDGET_OVER_SHARE":
      return `Its budget ${input.budgetPath}, which ${shareUsedText(d.ratio, w)}, has not used at least ${formatPercent(d.margin ?? 0)} less than the budgets holding interruptible GPUs${d.victimRatio === undefined ? "" : ` (the lowest of them ${shareUsedText(d.victimRatio, w)})`}, so it may not preempt them; ${needText(d, nodeSize)} (${pos}).`;
    case "DEBUG_VICTIM_COST":
      return `Debug-lane jobs end only runs that would lose at most ${gpuHours(d.debugVictimMaxCost ?? 0)} of work, and every run that could make room for it would lose more; ${needText(d, nodeSize)}; ${startText(d.earliestStart, input.now)} (${pos}, ${budget}).`;
    case "CONTRACTS":
      return `The GPUs it needs are held by protected jobs; ${startText(d.earliestStart, input.now)}; ${needText(d, nodeSize)} (${pos}, ${budget}).`;
    case "CAPACITY":
      return `Not enough free GPUs: ${needText(d, nodeSize)}; ${startText(d.earliestStart, input.now)} (${pos}, ${budget}).`;
  }
}

/** GPU-seconds as a person reads them: "4 GPU-hours", "2.5 GPU-hours", "30 GPU-minutes". */
function gpuHours(gpuSeconds: number): string {
  if (gpuSeconds < 3600) return plural(Math.round(gpuSeconds / 60), "GPU-minute");
  return plural(Math.round((gpuSeconds / 3600) * 10) / 10, "GPU-hour");
}

/**
 * A lower bound, never said as if it were the expected start. It counts each run as holding its GPUs
 * until its protection or maxRuntime ends, but a run may end on its own sooner (seen live: "cannot start
 * for at least 7 h 59 min" for a job that started 4 min later), so the sentence says so.
 */
function startText(earliestStart: number | null, now: number): string {
  if (earliestStart === null) return "no start time can be estimated yet";
  if (earliestStart <= now) return "it may start as soon as GPUs free up";
  return `it cannot start for at least ${formatDuration(earliestStart - now)} unless the jobs holding the GPUs end sooner on their own`;
}

/** When the reserved job can start, as a person says it, and why this job may not use the gap until then. */
function reservedTail(t: number, now: number): string {
  if (t <= now) return "now";
  return `in ${formatDuration(t - now)}; this job could neither finish nor become interruptible before then`;
}

const MAX_NAMED = 3;

/** "job 81 to finish successfully and job 94 to end (successfully or not)", the first few named. */
function dependencyList(d: PendingReasonDetails): string {
  const deps = d.dependencies ?? [];
  const named = deps
    .slice(0, MAX_NAMED)
    .map((x) => `job ${x.jobId} to ${x.condition === "ok" ? "finish successfully" : "end (successfully or not)"}`);
  if (deps.length > MAX_NAMED) named.push(`${plural(deps.length - MAX_NAMED, "other job")}`);
  return joinWords(named);
}

const ENDED_WORDS: Record<string, string> = {
  FAILED: "failed",
  PREEMPTED: "was preempted and not requeued",
  CANCELLED: "was cancelled",
  KILLED: "was killed at its maximum runtime",
  LOST: "was lost with its node",
};

/** "it needs job 81 to finish successfully, and job 81 failed". */
function neverList(d: PendingReasonDetails): string {
  const deps = d.dependencies ?? [];
  const first = deps[0];
  if (!first) return "a job it depends on ended without success";
  const more =
    deps.length > 1 ? ` (and ${plural(deps.length - 1, "other dependency", "other dependencies")} cannot be met either)` : "";
  return `it needs job ${first.jobId} to finish successfully, and job ${first.jobId} ${ENDED_WORDS[first.state] ?? "ended without success"}${more}`;
}

function joinWords(xs: string[]): string {
  if (xs.length <= 1) return xs[0] ?? "";
  return `${xs.slice(0, -1).join(", ")} and ${xs[xs.length - 1]}`;
}

/**
 * "Node h100-3 goes into maintenance in 3 h, and this job may not be cut short for 4 h after it starts".
 * The span is the minimum, or a debug job's whole run (planned-drains.ts): words that fit both.
 */
function plannedDrainWords(d: PendingReasonDetails, now: number): string {
  if (d.drainNode === undefined || d.drainAt === undefined)
    return "The nodes with room for it go into planned maintenance before its protection would end";
  return `Node ${d.drainNode} goes into maintenance ${formatWhen(d.drainAt, now)}, and this job may not be cut short for ${formatDuration(d.drainSpan ?? 0)} after it starts, so it may not start there`;
}
