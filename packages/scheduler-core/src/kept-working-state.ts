import type { JobState } from "./cluster-state";
import type { RuleSet } from "./cycle/rule-set";
import type { FairTree, TreeShape } from "./fair-tree";
import type { KeptBoard } from "./kept-board";
import type { NodeOrder } from "./node-order";
import { jobState, setFields } from "./running-job-state";
import type { ClusterSnapshot, Node, NodeState, PolicyConfig, RunningJob } from "./types";

/**
 * A board and job states kept between cycles for a caller that passes the same running array every
 * cycle (the simulator: ~100,000 cycles a replay of ~1,000 running jobs and 352 nodes, where rebuilding
 * them was most of a cycle). The next cycle brings them up to date with what changed: jobs that
 * started or ended, and each job's fields (a protection that ended changes its node's bounds). The
 * cycle's own starts and preemptions are undone afterwards (KeptBoard.record / rollback), so every
 * cycle starts from exactly what a fresh load of its snapshot gives: same GPUs, same per-node job
 * order (job id), same bounds. It lives in a scheduler's memory (createScheduler); the stateless
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
  jobs: JobState[];
  /** Each job's placement array when it was loaded: a job object given a new one is loaded again. */
  placements: RunningJob["placement"][];
  /** Each job's budget id when it was loaded: a job given another one in place is loaded again. */
  budgets: string[];
  /** Each job's bound category when the board last counted it (NodeBoard.category). */
  cats: number[];
}

/**
 * A kept job's placement is read once, when it is loaded (its slots share the placement's GPU index
 * arrays). Reading it again every cycle to see whether it was edited in place was a sixth of a small
 * cycle, so a kept placement is frozen instead: an edit in place fails where it is made (TypeError in
 * strict code) and cannot make the kept board differ from the job. A job that moves is a new object.
 */
function freezePlacement(job: RunningJob): void {
  const placement = job.placement;
  if (Object.isFrozen(placement)) return;
  for (const p of placement) {
    Object.freeze(p.gpuIndexes);
    Object.freeze(p);
  }
  Object.freeze(placement);
}

/** What a cycle keeps of a fresh load for the next one (see Kept). */
export function keptFrom(
  list: readonly RunningJob[],
  nodes: readonly Node[],
  order: NodeOrder,
  shape: TreeShape,
  board: KeptBoard,
  jobs: JobState[],
): Kept {
  return {
    list,
    nodes,
    order,
    nodeFields: fieldsOf(order.sorted),
    shape,
    board,
    jobs,
    placements: jobs.map((js) => (freezePlacement(js.job), js.job.placement)),
    budgets: jobs.map((js) => js.job.budgetId),
    cats: jobs.map((js) => board.category(js)),
  };
}

/** No node changes state this cycle and none is draining or down: a kept board never moves a node. */
export function stable(nodes: readonly Node[], states: ReadonlyMap<string, NodeState>): boolean {
  if (states.size > 0) return false;
  for (const n of nodes) if ((n.state !== "READY" && n.state !== "CORDONED") || n.health !== "HEALTHY") return false;
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
    if (n.state !== f[3 * i] || n.health !== f[3 * i + 1] || n.gpuCount !== f[3 * i + 2]) return false;
  }
  return true;
}

/**
 * Brings a kept state up to this cycle's snapshot in one walk: a merge of the kept jobs and the running
 * list, both in id order (the same object is the same job; anything else leaves or arrives), setting
 * every kept job's fields as a fresh load would. One walk, because reading each job object is most of
 * its cost. False when the list is not in id order or a kept job was given another budget or
 * placement array in place (the caller then loads afresh; nothing kept is used again).
 */
export function update(
  k: Kept,
  list: readonly RunningJob[],
  tree: FairTree,
  policy: PolicyConfig,
  now: number,
  rules: RuleSet,
): boolean {
  const board = k.board;
  board.now = now;
  const old = k.jobs;
  const oldCats = k.cats;
  const jobs: JobState[] = [];
  const placements: RunningJob["placement"][] = [];
  const budgets: string[] = [];
  const cats: number[] = [];
  let arrived: JobState[] | null = null;
  let gone: JobState[] | null = null;
  let dirty: Set<number> | null = null;
  let j = 0;
  let afterArrival = false;
  for (let i = 0; i < list.length; i++) {
    const job = list[i]!;
    let kept: JobState | undefined = old[j];
    if (kept === undefined || kept.job !== job) {
      // Kept jobs before it in id order have ended, or it arrived (the kept ones keep their order).
      if (i > 0 && !(list[i - 1]!.id < job.id)) return false;
      while (j < old.length && old[j]!.job.id < job.id) (gone ??= []).push(old[j++]!);
      kept = old[j];
      if (kept !== undefined && kept.job !== job) {
        if (kept.job.id === job.id) (gone ??= []).push(old[j++]!); // same id, another object: it left and came back
        kept = undefined;
      }
    }
    if (kept === undefined) {
      const js = jobState(job, tree, board, policy, now, rules);
      freezePlacement(job);
      jobs.push(js);
      placements.push(job.placement);
      budgets.push(job.budgetId);
      cats.push(-2); // counted when added below
      (arrived ??= []).push(js);
      afterArrival = true;
      continue;
    }
    if (afterArrival && !(list[i - 1]!.id < job.id)) return false;
    afterArrival = false;
    if (job.placement !== k.placements[j] || job.budgetId !== k.budgets[j]) return false;
    setFields(kept, tree, policy, now, rules);
    const c = board.category(kept);
    if (c !== oldCats[j]) for (const sl of kept.slots) (dirty ??= new Set()).add(sl.node);
    jobs.push(kept);
    placements.push(job.placement);
    budgets.push(job.budgetId);
    cats.push(c);
    j++;
  }
  while (j < old.length) (gone ??= []).push(old[j++]!);
  if (gone !== null) for (const js of gone) board.remove(js);
  if (arrived !== null) {
    for (const js of arrived) board.add(js);
    for (let i = 0; i < jobs.length; i++) if (cats[i] === -2) cats[i] = board.category(jobs[i]!);
  }
  if (dirty !== null) for (const node of dirty) board.refresh(node);
  k.jobs = jobs;
  k.cats = cats;
  k.placements = placements;
  k.budgets = budgets;
  return true;
}
