/** @tranche/testkit: builders, a scenario DSL and a plan-applying harness for tests. */
export { seconds, type Duration } from "./duration";
export { makeJob, JobBuilder, resetJobIds } from "./job-builder";
export { makeCluster, ClusterBuilder, ROOT_ID } from "./snapshot-builder";
export { createHarness, Harness, type HarnessOptions } from "./harness";
export {
  startsOf,
  preemptionsOf,
  lostOf,
  killsOf,
  nodeStatesOf,
  reservesOf,
  startedIds,
  preemptedIds,
  reasonCode,
} from "./plan-queries";
