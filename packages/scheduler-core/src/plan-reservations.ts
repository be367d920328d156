import type { JobState, NodeBoard } from "./cluster-state";
import type { FairTree } from "./fair-tree";
import type { JobLane, PolicyConfig } from "./types";

/**
 * R7: when the first job in order cannot start even after every preemption R3/R4 allow, find when
 * enough GPUs free up and reserve those nodes from then. A GPU frees up:
 * - now when it is free or held by unallocated work (any allocated job may preempt it);
 * - when a leaving job's grace ends;
 * - when a charged job reaches maxRuntime, or its protection ends if this job may preempt it then
 *   (debug lane, or its budget ranks ahead of the holder's by more than the margin, judged now). A
 *   debug holder counts on every run, R5's victim limit aside: its node then stays held for the lane,
 *   which measured better than counting only the runs within the limit (scheduling-model.md §7);
 * - never (Infinity) otherwise: then there is no reservation.
 */
export type ReleaseOf = (v: JobState) => number;

/**
 * What a reservation's holder may count on besides R4 (R7): nothing ("none"), or, for a job of one
 * whole node ("node") or of several ("nodes"), interruptible work of budgets it ranks ahead of
 * (FairTree.mayTakeSurplus says how far).
 */
export type HolderReach = "none" | "node" | "nodes";

/** The reach of a holder of `gpus` GPUs on nodes of `nodeSize` (see HolderReach). */
export function holderReach(gpus: number, nodeSize: number): HolderReach {
  if (nodeSize <= 0 || gpus < nodeSize) return "none";
  return gpus > nodeSize ? "nodes" : "node";
}

/**
 * May a reservation's holder of budget a preempt interruptible work of budget b once its reservation
 * is due: by the owed-share rule (R4), or, for a job of whole nodes (which ordinary turnover rarely
 * frees), because a ranks ahead of b by more than the margin (R7: large jobs do not starve).
 */
export function holderMayPreempt(
  tree: FairTree,
  policy: PolicyConfig,
  a: number,
  b: number,
  gpus: number,
  holder: HolderReach,
): boolean {
  if (a < 0 || b < 0) return false;
  return (
    tree.mayTakeShare(a, b, gpus, policy.preemptionMargin) ||
    (holder !== "none" && tree.mayTakeSurplus(a, b, gpus, policy.preemptionMargin, holder === "nodes"))
  );
}

export function releaseFor(
  tree: FairTree,
  policy: PolicyConfig,
  now: number,
  lane: JobLane,
  budget: number,
  holder: HolderReach = "none",
): ReleaseOf {
  // Speed bookkeeping, no rule: a holder whose budget is not short by the margin may preempt no
  // charged job under R4 or, unless it needs several nodes, R7 (holderMayPreempt: both ask it of the
  // holder's budget first), so no job needs asking. Judged when the search starts, as the rest is.
  const never = lane !== "DEBUG" && holder !== "nodes" && (budget < 0 || !tree.shortBy(budget, policy.preemptionMargin));
  return (v) => {
    if (v.gone) return now;
    if (v.stopping) return Math.max(now, v.exitBy);
    if (!v.charged) return now;
    if (never) return Math.max(now, v.maxEnd);
    const mayPreempt = lane === "DEBUG" || holderMayPreempt(tree, policy, budget, v.budget, v.job.gpus, holder);
    const end = mayPreempt ? Math.max(now, v.protectedUntil) : Infinity;
    return Math.max(now, Math.min(end, v.maxEnd));
  };
}

/**
 * Release time of every GPU of a node, ascending (a GPU held twice frees when both are gone). Written
 * into `out` when given (a scratch array the caller reads before the next call), else a new array.
 */
export function nodeReleases(board: NodeBoard, node: number, releaseOf: ReleaseOf, out?: number[]): number[] {
  const gpuCount = board.nodes[node]!.gpuCount;
  const now = board.now;
  const times = out ?? new Array<number>(gpuCount);
  // Set only when it differs: a length write is a runtime call even when it changes nothing.
  if (times.length !== gpuCount) times.length = gpuCount;
  for (let i = 0; i < gpuCount; i++) times[i] = now;
  const jobs = board.jobsOn[node]!;
  for (let j = 0; j < jobs.length; j++) {
    const v = jobs[j]!;
    const t = releaseOf(v);
    if (t <= now) continue; // frees now: leaves the GPU at `now`
    const slots = v.slots;
    for (let k = 0; k < slots.length; k++) {
      const s = slots[k]!;
      if (s.node !== node) continue;
      const gpus = s.gpus;
      for (let x = 0; x < gpus.length; x++) {
        const g = gpus[x]!;
        if (g >= 0 && g < gpuCount && t > times[g]!) times[g] = t;
      }
    }
  }
  // Insertion sort: a node has a handful of GPUs, and this runs for every node.
  for (let i = 1; i < gpuCount; i++) {
    const t = times[i]!;
    let j = i - 1;
    while (j >= 0 && times[j]! > t) {
      times[j + 1] = times[j]!;
      j--;
    }
    times[j + 1] = t;
  }
  return times;
}

/**
 * Upper bounds on a node's GPUs that free up (nodeReleases): returns how many may free now (release
 * at or before now: its free GPUs and those of every job that releases by now), and writes into
 * `ever[node]` how many may free at all (release before Infinity). A GPU held twice may be counted
 * twice, so both are upper bounds: below `gpus`, the node's gpus-th release is later than now, or
 * never.
 */
function releasableAtMost(board: NodeBoard, node: number, releaseOf: ReleaseOf, ever: number[]): number {
  const now = board.now;
  let n = board.free[node]!;
  let e = n;
  const jobs = board.jobsOn[node]!;
  for (let j = 0; j < jobs.length; j++) {
    const v = jobs[j]!;
    const t = releaseOf(v);
    if (t === Infinity) continue;
    let held = 0;
    for (let k = 0; k < v.slots.length; k++) if (v.slots[k]!.node === node) held += v.slots[k]!.gpus.length;
    e += held;
    if (t <= now) n += held;
  }
  ever[node] = e;
  return n;
}

export interface ReservationChoice {
  nodes: number[];
  from: number;
}

/** Earliest start of a job of `gpus` on allowed nodes, and the nodes that give it. */
export function findEarliestStart(
  board: NodeBoard,
  gpus: number,
  releaseOf: ReleaseOf,
  allowNode: (node: number) => boolean,
): ReservationChoice | null {
  if (gpus <= 0 || board.size === 0) return null;
  const scratch: number[] = [];
  if (gpus <= board.size) {
    // Nothing frees earlier than now, and a later node wins only by being earlier: the first node
    // whose GPUs free now is the answer. Its release times are computed only where enough GPUs could
    // free now (on an overloaded cluster most nodes hold work this job may not preempt).
    const ever = new Array<number>(board.count).fill(0);
    for (let node = 0; node < board.count; node++) {
      if (!board.schedulable[node] || board.nodes[node]!.gpuCount < gpus || !allowNode(node)) continue;
      if (releasableAtMost(board, node, releaseOf, ever) < gpus) continue;
      const t = nodeReleases(board, node, releaseOf, scratch)[gpus - 1]!;
      if (t <= board.now) return { nodes: [node], from: t };
    }
    // None frees now: the earliest, the first node on ties. A node where fewer GPUs than the job's
    // ever free up (held by work this job may never preempt and that has no maxRuntime) has no time.
    let best: ReservationChoice | null = null;
    for (let node = 0; node < board.count; node++) {
      if (!board.schedulable[node] || board.nodes[node]!.gpuCount < gpus || !allowNode(node)) continue;
      if (ever[node]! < gpus) continue;
      const t = nodeReleases(board, node, releaseOf, scratch)[gpus - 1]!;
      if (t !== Infinity && (!best || t < best.from)) best = { nodes: [node], from: t };
    }
    return best;
  }
  if (gpus % board.size !== 0) return null;
  const need = gpus / board.size;
  const full: { node: number; t: number }[] = [];
  let freeNow = 0;
  for (let node = 0; node < board.count && freeNow < need; node++) {
    if (!board.schedulable[node] || board.nodes[node]!.gpuCount !== board.size || !allowNode(node)) continue;
    const rel = nodeReleases(board, node, releaseOf, scratch);
    const t = rel[rel.length - 1] ?? board.now;
    if (t !== Infinity) full.push({ node, t });
    // The first `need` nodes free now (in node order) are what the sort below would pick.
    if (t <= board.now) freeNow++;
  }
  if (full.length < need) return null;
  full.sort((a, b) => a.t - b.t || a.node - b.node);
  const picked = full.slice(0, need);
  return { nodes: picked.map((p) => p.node).sort((a, b) => a - b), from: picked[need - 1]!.t };
}

/**
 * Contract-aware estimate of the earliest start of any job of a given size, for explanations (R10):
 * unallocated work leaves now, protected work at the end of its protection, bounded work at its
 * maxRuntime, leaving work at the end of its grace. It ignores ranks, so it is a lower bound; the
 * reserved job gets its exact reservation time instead. Computed once per cycle, memoised per size;
 * a job with node lists counts only the nodes it may use (its mask, node-constraints.ts), not memoised.
 */
export class StartEstimator {
  /** Per schedulable node: its board index and its GPUs' release times, ascending. */
  private nodes: number[] | null = null;
  private single: number[][] | null = null;
  private fullTimes: number[] | null = null;
  private readonly memo = new Map<number, number | null>();

  constructor(private readonly board: NodeBoard) {}

  private prepare(): void {
    const b = this.board;
    const releaseOf: ReleaseOf = (v) =>
      v.gone
        ? b.now
        : v.stopping
          ? Math.max(b.now, v.exitBy)
          : !v.charged
            ? b.now
            : Math.max(b.now, Math.min(v.protectedUntil, v.maxEnd));
    this.nodes = [];
    this.single = [];
    this.fullTimes = [];
    for (let node = 0; node < b.count; node++) {
      if (!b.schedulable[node]) continue;
      const rel = nodeReleases(b, node, releaseOf);
      this.nodes.push(node);
      this.single.push(rel);
      if (b.nodes[node]!.gpuCount === b.size) this.fullTimes.push(rel[rel.length - 1] ?? b.now);
    }
    this.fullTimes.sort((a, c) => a - c);
  }

  /** `mask`: per board node, 1 where the job may run (NodeConstraints.maskOf); null when anywhere. */
  earliest(gpus: number, mask: Uint8Array | null = null): number | null {
    if (mask !== null) return this.earliestOn(gpus, mask);
    const cached = this.memo.get(gpus);
    if (cached !== undefined) return cached;
    if (!this.single) this.prepare();
    let t = Infinity;
    if (gpus <= this.board.size) {
      for (const rel of this.single!) if (rel.length >= gpus && rel[gpus - 1]! < t) t = rel[gpus - 1]!;
    } else if (this.board.size > 0) {
      const need = gpus / this.board.size;
      if (Number.isInteger(need) && this.fullTimes!.length >= need) t = this.fullTimes![need - 1]!;
    }
    const out = t === Infinity ? null : t;
    this.memo.set(gpus, out);
    return out;
  }

  /** The same on the nodes a job's lists leave it. */
  private earliestOn(gpus: number, mask: Uint8Array): number | null {
    if (!this.single) this.prepare();
    const b = this.board;
    let t = Infinity;
    if (gpus <= b.size) {
      for (let i = 0; i < this.nodes!.length; i++) {
        const rel = this.single![i]!;
        if (mask[this.nodes![i]!] === 1 && rel.length >= gpus && rel[gpus - 1]! < t) t = rel[gpus - 1]!;
      }
    } else if (b.size > 0) {
      const need = gpus / b.size;
      const full: number[] = [];
      for (let i = 0; i < this.nodes!.length; i++) {
        const node = this.nodes![i]!;
        const rel = this.single![i]!;
        if (mask[node] === 1 && b.nodes[node]!.gpuCount === b.size) full.push(rel[rel.length - 1] ?? b.now);
      }
      full.sort((a, c) => a - c);
      if (Number.isInteger(need) && full.length >= need) t = full[need - 1]!;
    }
    return t === Infinity ? null : t;
  }
}
