import type { KnownShape } from "./fair-tree";
import type { KeptAdmission } from "./kept-admission";
import type { NodeOrder } from "./node-order";
import type { RunningJob } from "./types";
import type { Kept } from "./working-state";

/**
 * What a scheduler (createScheduler) keeps between the cycles of one cluster, so a caller that
 * passes the same arrays every cycle (the simulator) does not rebuild them: the budget tree's shape,
 * the nodes' order, and the node board with the running jobs' states. Each is checked against the
 * next snapshot before it is used, and rebuilt when it no longer holds. The stateless runCycle uses
 * a fresh, empty memory every call.
 */
export class WorkingMemory {
  treeShape: KnownShape | null = null;
  nodeOrder: NodeOrder | null = null;
  /** The kept board and job states (working-state.ts); null while a cycle runs on them. */
  kept: Kept | null = null;
  /** The running array of the previous cycle: the board is kept from the second cycle that passes it. */
  lastRunning: readonly RunningJob[] | null = null;
  /** Pending jobs admitted by earlier cycles (kept-admission.ts). */
  admission: KeptAdmission | null = null;
  /** Blocked jobs of one kind share one outcome while nothing moves (cycle/blocked-memo.ts); false only in tests that check it. */
  shareBlockedOutcomes = true;
  /** A failed reservation search is not repeated within a cycle (cycle/reservations.ts); false only in tests that check it. */
  rememberFailedReservations = true;
  /** Reasons wait for a reader (cycle/closed-lane.ts, baselines/waiting-notes.ts); false only in tests that check it. */
  deferReasons = true;
  /** How many jobs' reasons the last cycle left to its reader (for tests and benches: it decides nothing). */
  deferredJobs = 0;
  /** How many jobs of its baseline walk the last cycle left unwalked (baselines/closed-tail.ts; for tests and benches). */
  closedTailJobs = 0;
  /** How many jobs of its baseline walk the last cycle passed in quiet runs, its closed tail included (baselines/quiet-runs.ts). */
  quietRunJobs = 0;
}
