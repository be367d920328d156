// @tranche/domain: server use-cases with their invariants and transactions. Adapters (tRPC, REST,
// CLI through REST) stay thin: parse with @tranche/contracts, resolve the Actor, call these.
export * from "./errors";
export * from "./auth/actor";
export * from "./auth/sign-in-limits";
export * from "./jobs/job-view";
export * from "./jobs/submit-job";
export { maxWaitingJobsPerUser } from "./jobs/waiting-cap";
export * from "./jobs/sessions";
export * from "./jobs/session-handoff";
export * from "./jobs/job-actions";
export { cancelArray, setDependencies } from "./jobs/job-rules-input";
export { holdArray, releaseArray, type ArrayHeld, type ArrayReleased } from "./jobs/array-hold";
export * from "./jobs/queries";
export * from "./jobs/job-logs";
export * from "./jobs/queue";
export * from "./jobs/in-use";
export * from "./budgets/tree";
export * from "./budgets/set-allocations";
export * from "./nodes/nodes";
export * from "./tokens/api-tokens";
export * from "./budgets/what-if";
export * from "./budgets/what-if-limit";
export * from "./measures/charts";
export * from "./admin";
export * from "./notifications/inbox";
export * from "./notifications/webhooks";
export * from "./notifications/webhook-target";
export * from "./budgets/user-limits";
