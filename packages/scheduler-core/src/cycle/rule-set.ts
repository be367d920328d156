import { protectionEnd } from "../contract";
import type { PolicyConfig, RunningJob } from "../types";
import { runLanes } from "./lanes";
import type { CycleSession } from "./session";

/**
 * A scheduling regime as the session asks it (in the spirit of KAI's plugins): when a charged run's
 * protection ends, and how the pending jobs are taken — their order, whether a victim may be
 * preempted for them, where they may start. Everything else a cycle does is the same for every
 * regime: node transitions (R8/R9), lost jobs, kills at maxRuntime, drains and REPAIR, the pending
 * reasons' sentences and the summary. `fairshare` is Tranche's policy; `priority` and `fifo`
 * (baselines/) are the regimes it is compared with.
 */
export interface RuleSet {
  readonly name: string;
  /** R4: when a charged run stops being protected (NEVER: not before it ends). */
  protectedUntil(
    job: Pick<RunningJob, "startedAt" | "minRuntime" | "squattingSince">,
    policy: Pick<PolicyConfig, "squattingUnprotectAfter">,
  ): number;
  /**
   * Phase 6: order the admitted pending jobs and start, preempt, reserve or explain each.
   * `shareBlocked`: a blocked job's outcome may serve later jobs of its kind (blocked-memo.ts).
   */
  takePending(s: CycleSession, shareBlocked?: boolean): void;
}

/** SPEC R1-R7: the three lanes in fair-tree order, protection for minRuntime after each start (contract.ts). */
export const FAIRSHARE: RuleSet = {
  name: "fairshare",
  protectedUntil: (job, policy) => protectionEnd(job, true, policy),
  takePending: runLanes,
};

/** A protection that never ends by itself (the priority baseline's non-preemptible runs). */
export const NEVER = Number.MAX_SAFE_INTEGER;
