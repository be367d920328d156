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

/** A heartbeat from another agent version than the last one: the agent was restarted, upgraded or downgraded. */
export function agentRestartedText(agentVersion: string, before: string | null): string {
  const v = version(agentVersion);
  const was = version(before);
  return v ? `Agent restarted (version ${v}${was ? `, was ${was}` : ""}).` : "Agent restarted.";
}
