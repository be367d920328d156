/**
 * An agent's times (a launch, an exit, a checkpoint) are read on its host's clock. A host whose clock is
 * minutes behind reported every exit before the run's start, so the run was kept as lasting nothing (and
 * charged nothing); minutes ahead, every exit came as "now". The agent says its clock's time when it sends
 * a heartbeat (`sentAt`); the difference to the control plane's clock on arrival moves its times onto ours.
 */

/** Differences this small are the heartbeat's time in flight, not a clock that is off: nothing is moved. */
export const AGENT_CLOCK_TOLERANCE_MS = 5000;

/** Reads the agent's ISO times on the control plane's clock (ms); an agent that sends no `sentAt` is taken as is. */
export function agentClock(sentAt: string | undefined, now: Date): (iso: string) => number {
  const offset = sentAt ? now.getTime() - Date.parse(sentAt) : 0;
  const shift = Number.isFinite(offset) && Math.abs(offset) > AGENT_CLOCK_TOLERANCE_MS ? offset : 0;
  return (iso) => Date.parse(iso) + shift;
}
