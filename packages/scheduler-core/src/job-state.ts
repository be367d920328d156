import type { RunningJob } from "./types";

/** Working state of a running job during a cycle (snapshot jobs and jobs started this cycle). */
export interface JobState {
  job: RunningJob;
  /** Budget index in the FairTree, -1 when unknown. */
  budget: number;
  charged: boolean;
  /** In the debug lane (R5): counts towards its user's debug cap. */
  debug: boolean;
  /** When protection ends (charged runs); its start for unallocated runs. */
  protectedUntil: number;
  /** startedAt + maxRuntime, Infinity when unbounded. */
  maxEnd: number;
  /** Leaving: preempted or drained before this cycle, or in this cycle. */
  stopping: boolean;
  /**
   * When a leaving job will have exited at the latest. Read only while it is stopping or gone: a
   * kept job's (kept-working-state.ts) is not moved to each cycle's now.
   */
  exitBy: number;
  /** Started in this cycle: never a victim in the same cycle. */
  isNew: boolean;
  /** Preempted or lost in this cycle: its GPUs are free for later starts once it exits. */
  gone: boolean;
  /** Node indexes and GPU indexes it holds. */
  slots: { node: number; gpus: number[] }[];
  /**
   * Its GPUs on schedulable nodes (R4's interruptible GPUs count these). Set with its slots: a board's
   * schedulable nodes never change (NodeBoard.schedulable).
   */
  schedulableGpus: number;
}
