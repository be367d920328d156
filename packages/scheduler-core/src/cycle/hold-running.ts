import type { CycleSession } from "./session";

/**
 * R2 projection and R5 cap as the cycle starts: the GPUs each budget and each user's debug lane hold
 * (jobs already leaving hold nothing), and the interruptible GPUs per budget (see
 * CycleSession.interruptibleByBudget); the ratios before any move are kept for the result. One walk
 * over the running jobs: in the simulator's small cycles, reaching each job is most of the cost.
 */
export function holdRunning(s: CycleSession): void {
  const { tree, now } = s;
  const interruptible = s.interruptibleByBudget;
  // Summed per budget first, then one walk up the tree per budget (not per job): GPU counts are
  // integers, so the sums, hence the ratios, are exactly what one addHeld per job gives.
  const perBudget = new Float64Array(tree.size);
  for (const js of s.jobs) {
    if (js.stopping) continue;
    if (js.charged && js.budget >= 0) {
      perBudget[js.budget] = perBudget[js.budget]! + js.job.gpus;
      if (!js.gone && !js.isNew && now >= js.protectedUntil)
        interruptible[js.budget] = interruptible[js.budget]! + js.schedulableGpus;
    }
    if (js.debug) s.addDebug(js.job.userId, js.job.gpus);
  }
  for (let b = 0; b < perBudget.length; b++) if (perBudget[b] !== 0) tree.addHeld(b, perBudget[b]!);
  s.heldAtStart = Float64Array.from(tree.held);
  s.projectedAtStart = Array.from({ length: tree.size }, (_, i) => tree.projectedRatio(i));
}
