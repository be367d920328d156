// Control plane runtime (issue 5): snapshot loading, plan application, charging, leader lease, the agent
// protocol's use-cases and metrics. Used by apps/worker, the web app's /api/agent/v1 and /metrics routes.
export { loadClusterSnapshot, loadCycleInput, type CycleInput, type RawQuery } from "./load-snapshot";
export { applyCyclePlan, LostLeadershipError, type AppliedCycle } from "./apply-plan";
export { chargeOpenSegments, addCapacity } from "./charge";
export { closeRun, decideRunOutcome, type RunOutcome } from "./job-lifecycle";
export { acquireOrRenewLease, releaseLease, currentLeader, LEASE_NAME } from "./lease";
export {
  enrollAgent,
  handleHeartbeat,
  handleAgentRequest,
  agentRequestLimit,
  agentReplyHeaders,
  handleAgentWait,
  assignmentsFor,
  heartbeatIntervalSec,
  SCHEDULER_CHANNEL,
  type AgentReply,
} from "./agent-protocol";
export { serveAgentProtocol } from "./agent-server";
export { AgentWakeups, AGENTS_CHANNEL, agentWakePayloads, assignmentsDigest } from "./agent-wait";
export { hashSecret, issueEnrollmentTokens, issueNodeCredential } from "./credentials";
export { resolveClusterPolicy, policyOverridesFromEnv } from "./policy";
export { toSec, fromSec, nowSec } from "./time";
export { renderMetrics } from "./metrics";
export { clearStartForecasts, refreshStartForecasts, writeStartForecasts } from "./start-forecast";
export { logRetentionBytes, logUserBytes } from "./job-logs";
export { prepareDemoAgents } from "./demo-agents";
export { waitingDependenciesSql } from "./load-job-rules";
