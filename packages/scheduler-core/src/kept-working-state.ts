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
  /** Each job's budget and placement contents when it was loaded (see sameAsLoaded). */
  loaded: LoadedFields[];
  /** Each job's bound category when the board last counted it (NodeBoard.category). */
  cats: number[];
}

/** [budgetId, then per placement entry: nodeId, GPU count, the GPU indexes]. */
type LoadedFields = (string | number)[];

function loadedFields(job: RunningJob): LoadedFields {
  const out: LoadedFields = [job.budgetId];
  for (const p of job.placement) out.push(p.nodeId, p.gpuIndexes.length, ...p.gpuIndexes);
  return out;
}

/**
 * A kept job's budget and placement are read once, when it is loaded (its slots share the
 * placement's GPU index arrays): one edited in place instead of replaced means the kept board is
 * wrong, so the cycle loads afresh.
 */
function sameAsLoaded(job: RunningJob, f: LoadedFields): boolean {
  if (job.budgetId !== f[0]) return false;
  let k = 1;
  for (const p of job.placement) {
    const g = p.gpuIndexes;
    if (p.nodeId !== f[k] || g.length !== f[k + 1]) return false;
    k += 2;
    for (let i = 0; i < g.length; i++) if (g[i] !== f[k + i]) return false;
    k += g.length;
  }
  return k === f.length;
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
    placements: jobs.map((js) => js.job.placement),
    loaded: jobs.map((js) => loadedFields(js.job)),
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
 * Brings a kept state up to this cycle's snapshot: a merge of the kept jobs and the running list, both
 * in id order (the same object with the same placement is the same job; anything else leaves or
 * arrives), then every job's fields as a fresh load would set them. False when the list is not in id
 * order or a kept job's budget or placement was edited in place (the caller then loads afresh;
 * nothing kept is used again).
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
  const old = k.jobs;
  const oldLoaded = k.loaded;
  for (let i = 0; i < old.length; i++) if (!sameAsLoaded(old[i]!.job, oldLoaded[i]!)) return false;
  board.now = now;
  const oldCats = k.cats;
  const oldPlacements = k.placements;
  let same = old.length === list.length;
  for (let i = 0; i < list.length && same; i++) same = old[i]!.job === list[i] && oldPlacements[i] === list[i]!.placement;
  const jobs: JobState[] = same ? old : [];
  const cats: number[] = same ? oldCats : [];
  const placements: RunningJob["placement"][] = same ? oldPlacements : [];
  const loaded: LoadedFields[] = same ? oldLoaded : [];
  const arrived: JobState[] = [];
  const dirty = new Set<number>();
  if (!same) {
    const gone: JobState[] = [];
    let j = 0;
    for (let i = 0; i < list.length; i++) {
      const job = list[i]!;
      if (i > 0 && !(list[i - 1]!.id < job.id)) return false;
      while (j < old.length && old[j]!.job.id < job.id) gone.push(old[j++]!);
      const o = j < old.length && old[j]!.job.id === job.id ? old[j++]! : null;
      if (o !== null && o.job === job && oldPlacements[j - 1] === job.placement) {
        jobs.push(o);
        cats.push(oldCats[j - 1]!);
        placements.push(job.placement);
        loaded.push(oldLoaded[j - 1]!);
        continue;
      }
      if (o !== null) gone.push(o); // same id, another object: it left and came back
      const js = jobState(job, tree, board, policy, now, rules);
      jobs.push(js);
      cats.push(-2); // counted when added below
      placements.push(job.placement);
      loaded.push(loadedFields(job));
      arrived.push(js);
    }
    while (j < old.length) gone.push(old[j++]!);
    for (const js of gone) board.remove(js);
  }
  for (let i = 0; i < jobs.length; i++) {
    const js = jobs[i]!;
    if (cats[i] === -2) continue;
    setFields(js, tree, policy, now, rules);
    const c = board.category(js);
    if (c !== cats[i]) {
      cats[i] = c;
      for (const s of js.slots) dirty.add(s.node);
    }
  }
  for (const js of arrived) board.add(js);
  for (let i = 0; i < jobs.length; i++) if (cats[i] === -2) cats[i] = board.category(jobs[i]!);
  for (const node of dirty) board.refresh(node);
  k.jobs = jobs;
  k.cats = cats;
  k.placements = placements;
  k.loaded = loaded;
  return true;
}
