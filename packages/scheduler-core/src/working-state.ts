import { compareById } from "./budget-tree";
import type { JobState, NodeBoard } from "./cluster-state";
import { KeptBoard } from "./kept-board";
import { canKeep, keptFrom, stable, update, type Kept } from "./kept-working-state";
import type { FairTree } from "./fair-tree";
import type { NodeOrder } from "./node-order";
import type { RuleSet } from "./cycle/rule-set";
import { jobState } from "./running-job-state";
import { RunningTotals } from "./running-totals";
import type { ClusterSnapshot, NodeState, PolicyConfig } from "./types";
import type { WorkingMemory } from "./working-memory";

export type { Kept } from "./kept-working-state";

/** The node board and the running jobs' states a cycle starts from. */
export interface WorkingState {
  readonly board: NodeBoard;
  /** Running jobs in id order; the cycle appends the jobs it starts. */
  readonly jobs: JobState[];
  /** What the running jobs add up to as the cycle starts (running-totals.ts); the cycle only reads it. */
  readonly totals: RunningTotals;
  /** Call once the cycle is done with the board and the job states (ok: it ran to the end). */
  finish(ok: boolean): void;
}

function isSortedById(jobs: readonly { id: string }[]): boolean {
  for (let i = 1; i < jobs.length; i++) if (!(jobs[i - 1]!.id < jobs[i]!.id)) return false;
  return true;
}

/**
 * Loads the cycle's working state: kept from the previous cycle when `memory` has one that still
 * holds (see Kept), else from the snapshot. A memory that saw the same running array last cycle keeps
 * this cycle's state for the next one.
 */
export function loadWorkingState(
  snapshot: ClusterSnapshot,
  states: ReadonlyMap<string, NodeState>,
  tree: FairTree,
  policy: PolicyConfig,
  now: number,
  memory: WorkingMemory,
  order: NodeOrder,
  rules: RuleSet,
): WorkingState {
  const list = snapshot.running;
  const k = memory.kept;
  memory.kept = null; // put back by finish() once the cycle has run to the end
  if (k !== null && k.list === list && canKeep(k, snapshot, states, tree, order) && update(k, list, tree, policy, now, rules))
    return keepAfter(memory, k);
  const board = new KeptBoard(snapshot.nodes, states, now, order);
  // Used as given when already in id order (the simulator keeps it so): no copy and sort every cycle.
  const sorted = isSortedById(list);
  const running = sorted ? list : [...list].sort(compareById);
  const jobs: JobState[] = [];
  for (const job of running) {
    const js = jobState(job, tree, board, policy, now, rules);
    board.load(js);
    jobs.push(js);
  }
  board.finishLoad();
  const totals = RunningTotals.of(jobs, tree.size, now);
  const again = memory.lastRunning === list;
  memory.lastRunning = list;
  if (!again || !sorted || !stable(snapshot.nodes, states)) return { board, jobs, totals, finish: nothingToFinish };
  return keepAfter(memory, keptFrom(list, snapshot.nodes, order, tree, board, jobs, totals, now));
}

const nothingToFinish = (): void => {};

/**
 * Runs the cycle on a kept state: its starts and preemptions are undone afterwards. A class, not an
 * object with a closure: tsx (keepNames) wraps every named closure when it is made, once per cycle.
 */
class KeptRun implements WorkingState {
  readonly board: NodeBoard;
  readonly jobs: JobState[];
  readonly totals: RunningTotals;
  private readonly loaded: number;

  constructor(
    private readonly memory: WorkingMemory,
    private readonly k: Kept,
  ) {
    this.board = k.board;
    this.jobs = k.jobs;
    this.totals = k.totals;
    this.loaded = k.jobs.length;
    k.board.record();
  }

  finish(ok: boolean): void {
    if (!ok) return; // a cycle that threw leaves nothing to trust: the next one loads afresh
    this.k.board.rollback();
    this.k.jobs.length = this.loaded;
    this.memory.kept = this.k;
  }
}

function keepAfter(memory: WorkingMemory, k: Kept): WorkingState {
  return new KeptRun(memory, k);
}
