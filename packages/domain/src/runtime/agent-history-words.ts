/**
 * The node-history lines an agent's own comings and goings write, in an operator's words: without them
 * a re-enrollment or an upgrade left no trace, and a node's odd behaviour could not be put beside them.
 * An agent that sends no version (an empty one) is named without it.
 */
const version = (v: string | null | undefined) => (v && v.trim() !== "" ? v.trim() : null);

/** A node enrolled again with a token issued for it (a reinstalled host, a lost credential). */
export function agentEnrolledAgainText(agentVersion: string): string {
  const v = version(agentVersion);
  return v ? `Agent enrolled again (version ${v}).` : "Agent enrolled again.";
}

/**
 * A heartbeat from another start of the agent than the last (or from another version: upgraded or
 * downgraded), `times` restarts counted on one line over `minutes` (agent-restarts.ts). `before` is the
 * version before them, said only when it differs.
 */
export function agentRestartedText(agentVersion: string, before: string | null, times = 1, minutes = 0): string {
  const v = version(agentVersion);
  const was = version(before) === v ? null : version(before);
  const versions = v ? ` (version ${v}${was ? `, was ${was}` : ""})` : "";
  if (times <= 1) return `Agent restarted${versions}.`;
  const span = Math.max(1, minutes);
  return `Agent restarted ${times} times in ${span} minute${span === 1 ? "" : "s"}${versions}.`;
}
