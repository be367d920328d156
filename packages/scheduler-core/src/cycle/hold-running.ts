import type { CycleSession } from "./session";

/**
 * R2 projection and R5 cap as the cycle starts: the GPUs each budget and each user's debug lane hold
 * (jobs already leaving hold nothing); the ratios before any move are kept for the result. The sums
 * come with the working state (running-totals.ts), so this phase does not walk the running jobs; the
 * session starts its interruptible GPUs per budget from the same totals.
 */
export function holdRunning(s: CycleSession): void {
  const { tree, totals } = s;
  // One walk up the tree per budget (not per job): GPU counts are integers, so the sums, hence the
  // ratios, are exactly what one addHeld per job gives.
  const held = totals.held;
  for (let b = 0; b < held.length; b++) if (held[b] !== 0) tree.addHeld(b, held[b]!);
  for (const [user, gpus] of totals.debugByUser) s.addDebug(user, gpus);
  s.heldAtStart = tree.held.slice();
  const projected: number[] = [];
  for (let b = 0; b < tree.size; b++) projected.push(tree.projectedRatio(b));
  s.projectedAtStart = projected;
}
