import type { CycleSession } from "./session";

/**
 * R2 projection and R5 cap as the cycle starts: the GPUs each budget and each user's debug lane hold
 * (jobs already leaving hold nothing), and the interruptible GPUs per budget (see
 * CycleSession.interruptibleByBudget); the ratios before any move are kept for the result.
 */
export function holdRunning(s: CycleSession): void {
  const { tree, now } = s;
  for (const js of s.jobs) {
    if (js.stopping) continue;
    if (js.charged && js.budget >= 0) tree.addHeld(js.budget, js.job.gpus);
    if (js.debug) s.addDebug(js.job.userId, js.job.gpus);
  }
  const interruptible = s.interruptibleByBudget;
  for (const js of s.jobs) {
    if (js.gone || js.stopping || js.isNew || !js.charged || js.budget < 0 || now < js.protectedUntil) continue;
    interruptible[js.budget] = interruptible[js.budget]! + s.schedulableSlots(js);
  }
  s.heldAtStart = Float64Array.from(tree.held);
  s.projectedAtStart = Array.from({ length: tree.size }, (_, i) => tree.projectedRatio(i));
}
