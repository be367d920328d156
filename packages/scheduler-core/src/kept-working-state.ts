import type { JobState } from "./cluster-state";
import type { RuleSet } from "./cycle/rule-set";
import type { FairTree, TreeShape } from "./fair-tree";
import type { KeptBoard } from "./kept-board";
import type { NodeOrder } from "./node-order";
import { jobState } from "./running-job-state";
import type { RunningTotals } from "./running-totals";
import type { ClusterSnapshot, Node, NodeState, PolicyConfig, RunningJob } from "./types";

/**
 * A board and job states kept between cycles for a caller that passes the same running array every
 * cycle (the simulator: ~100,000 cycles a replay of ~1,000 running jobs and 352 nodes, where rebuilding
 * them was most of a cycle). The next cycle brings them up to date with what changed, and only that:
 * the jobs that started or ended (found by comparing the list's objects with last cycle's, not by
 * reading them), and the jobs whose protection ended since (a queue by protection end). A kept job
 * is frozen (its object, placement and stopping), so nothing else about it can change; a caller
 * changes a running job by passing a new object with its id. The cycle's own starts and preemptions
 * are undone afterwards (KeptBoard.record / rollback), so every cycle starts from exactly what a
 * fresh load of its snapshot gives: same GPUs, same per-node job order (job id), same bounds, same
 * totals (running-totals.ts). It lives in a scheduler's memory (createScheduler); the stateless
 * runCycle never keeps one.
 */
export interface Kept {
  /** The running array it was built from: only the same array, changed in place, is merged. */
  readonly list: readonly RunningJob[];
  readonly nodes: readonly Node[];
  readonly order: NodeOrder;
  /** state, health and gpuCount of every node (in board order) when the board was built. */
  readonly nodeFields: readonly (string | number)[];
  readonly shape: TreeShape;
  readonly board: KeptBoard;
  /** Whether each budget had an entitlement: a job with no `charged` of its own is charged by it. */
  readonly entitled: readonly boolean[];
  /** The running list's objects as the last cycle saw them, in its order (compared by identity). */
  seen: RunningJob[];
  /** Their states, in the same order. */
  jobs: JobState[];
  /** The kept jobs still protected at `now`, the latest protection end first (the next to end is last). */
  protectedJobs: JobState[];
  totals: RunningTotals;
  /** The cycle time the kept state was last brought up to. */
  now: number;
}

/**
 * A kept job is read once, when it is loaded (its slots share the placement's GPU index arrays).
 * Reading it again every cycle to see whether it changed was most of a small cycle, so it is frozen
 * instead: an edit in place fails where it is made (TypeError in strict code) and cannot make the
 * kept state differ from the job. A job that stops or moves is a new object.
 */
function freezeRun(job: RunningJob): void {
  if (Object.isFrozen(job)) return;
  for (const p of job.placement) {
    Object.freeze(p.gpuIndexes);
    Object.freeze(p);
  }
  Object.freeze(job.placement);
  if (job.stopping) Object.freeze(job.stopping);
  Object.freeze(job);
}

/** Its GPUs count as protected on the board (NodeBoard.category 2) until its protection ends. */
function isProtected(js: JobState, now: number): boolean {
  return js.charged && !js.stopping && now < js.protectedUntil;
}

/** Into the queue by protection end, latest first. */
function insertProtected(queue: JobState[], js: JobState): void {
  let lo = 0;
  let hi = queue.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (queue[mid]!.protectedUntil > js.protectedUntil) lo = mid + 1;
    else hi = mid;
  }
  queue.splice(lo, 0, js);
}

/** What a cycle keeps of a fresh load for the next one (see Kept). */
export function keptFrom(
  list: readonly RunningJob[],
  nodes: readonly Node[],
  order: NodeOrder,
  tree: FairTree,
  board: KeptBoard,
  jobs: JobState[],
  totals: RunningTotals,
  now: number,
): Kept {
  const protectedJobs: JobState[] = [];
  for (const js of jobs) {
    freezeRun(js.job);
    if (isProtected(js, now)) insertProtected(protectedJobs, js);
  }
  return {
    list,
    nodes,
    order,
    nodeFields: fieldsOf(order.sorted),
    shape: tree.shape,
    board,
    entitled: Array.from({ length: tree.size }, (_, b) => tree.hasEntitlement(b)),
    seen: list.slice(),
    jobs,
    protectedJobs,
    totals,
    now,
  };
}

/**
 * No node changes state this cycle, none is draining or down, and none plans a drain (its time
 * decides who may start there, planned-drains.ts): a kept board never moves a node.
 */
export function stable(nodes: readonly Node[], states: ReadonlyMap<string, NodeState>): boolean {
  if (states.size > 0) return false;
  for (const n of nodes)
    if ((n.state !== "READY" && n.state !== "CORDONED") || n.health !== "HEALTHY" || n.drainAt != null) return false;
  return true;
}

function fieldsOf(nodes: readonly Node[]): (string | number)[] {
  const out: (string | number)[] = [];
  for (const n of nodes) out.push(n.state, n.health, n.gpuCount);
  return out;
}

export function canKeep(
  k: Kept,
  snapshot: ClusterSnapshot,
  states: ReadonlyMap<string, NodeState>,
  tree: FairTree,
  order: NodeOrder,
): boolean {
  if (states.size > 0 || snapshot.nodes !== k.nodes || tree.shape !== k.shape || order !== k.order) return false;
  // The nodes were stable() when the board was built: the same fields now mean they still are.
  const f = k.nodeFields;
  const nodes = k.order.sorted;
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]!;
    if (n.state !== f[3 * i] || n.health !== f[3 * i + 1] || n.gpuCount !== f[3 * i + 2] || n.drainAt != null) return false;
  }
  return true;
}

/**
 * Brings a kept state up to this cycle's snapshot: a merge of the kept jobs and the running list, both
 * in id order (the same object is the same job; anything else leaves or arrives), then the jobs whose
 * protection ended since. Each step changes the board and the totals as a fresh load would see them.
 * False when time went back, a budget's entitlement appeared or vanished (it charges jobs that say
 * nothing), or the list is not in id order (the caller then loads afresh; nothing kept is used again).
 */
export function update(
  k: Kept,
  list: readonly RunningJob[],
  tree: FairTree,
  policy: PolicyConfig,
  now: number,
  rules: RuleSet,
): boolean {
  if (now < k.now) return false;
  for (let b = 0; b < k.entitled.length; b++) if (tree.hasEntitlement(b) !== k.entitled[b]) return false;
  const { board, totals, protectedJobs } = k;
  board.now = now;
  const seen = k.seen;
  // Only the stretch between the longest common prefix and suffix (by object) can have changed: the
  // jobs outside it are last cycle's, in their places. Merging that stretch alone, in place, spares
  // copying both arrays every cycle in which a job started or stopped (most of a replay's cycles).
  let lo = 0;
  const common = Math.min(seen.length, list.length);
  while (lo < common && seen[lo] === list[lo]) lo++;
  let arrived: JobState[] | null = null;
  if (lo < seen.length || lo < list.length) {
    let seenEnd = seen.length;
    let listEnd = list.length;
    while (seenEnd > lo && listEnd > lo && seen[seenEnd - 1] === list[listEnd - 1]) {
      seenEnd--;
      listEnd--;
    }
    // The job after the stretch must follow its last one in id order, as in a merge of the whole lists.
    if (listEnd > lo && listEnd < list.length && !(list[listEnd - 1]!.id < list[listEnd]!.id)) return false;
    const old = k.jobs;
    const jobs: JobState[] = [];
    let gone: JobState[] | null = null;
    let j = lo;
    let afterArrival = false;
    for (let i = lo; i < listEnd; i++) {
      const job = list[i]!;
      if (j >= seenEnd || seen[j] !== job) {
        // Kept jobs before it in id order have ended, or it arrived (the kept ones keep their order).
        if (i > 0 && !(list[i - 1]!.id < job.id)) return false;
        while (j < seenEnd && seen[j]!.id < job.id) (gone ??= []).push(old[j++]!);
        if (j < seenEnd && seen[j] !== job && seen[j]!.id === job.id) (gone ??= []).push(old[j++]!); // same id, another object
      }
      if (j < seenEnd && seen[j] === job) {
        if (afterArrival && !(list[i - 1]!.id < job.id)) return false;
        afterArrival = false;
        jobs.push(old[j++]!);
        continue;
      }
      const js = jobState(job, tree, board, policy, now, rules);
      freezeRun(job);
      jobs.push(js);
      (arrived ??= []).push(js);
      afterArrival = true;
    }
    while (j < seenEnd) (gone ??= []).push(old[j++]!);
    if (gone !== null)
      for (const js of gone) {
        totals.remove(js, k.now);
        // In the queue exactly while protected at the time it was last brought up to (k.now).
        const at = isProtected(js, k.now) ? protectedJobs.indexOf(js) : -1;
        if (at >= 0) protectedJobs.splice(at, 1);
        board.remove(js);
      }
    replaceRange(old, lo, seenEnd - lo, jobs);
    replaceRange(seen, lo, seenEnd - lo, list.slice(lo, listEnd));
  }
  let dirty: Set<number> | null = null;
  while (protectedJobs.length > 0 && protectedJobs[protectedJobs.length - 1]!.protectedUntil <= now) {
    const js = protectedJobs.pop()!;
    totals.protectionEnded(js);
    for (const sl of js.slots) (dirty ??= new Set()).add(sl.node);
  }
  if (arrived !== null)
    for (const js of arrived) {
      board.add(js);
      totals.add(js, now);
      if (isProtected(js, now)) insertProtected(protectedJobs, js);
    }
  totals.settle(k.jobs);
  if (dirty !== null) for (const node of dirty) board.refresh(node);
  k.now = now;
  return true;
}

/** Puts `items` in the place of `count` items of `xs` from `at`, in place. */
function replaceRange<T>(xs: T[], at: number, count: number, items: readonly T[]): void {
  if (items.length === count) {
    for (let i = 0; i < count; i++) xs[at + i] = items[i]!;
    return;
  }
  // splice's arguments are spread onto the stack: a long stretch (a fresh list) goes through a copy.
  if (items.length <= 4096) {
    xs.splice(at, count, ...items);
    return;
  }
  const tail = xs.slice(at + count);
  xs.length = at;
  for (const x of items) xs.push(x);
  for (const x of tail) xs.push(x);
}
