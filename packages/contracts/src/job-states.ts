// A job's states, in the order a job goes through them.
export const JOB_STATES = [
  "PENDING",
  "HELD",
  "RUNNING",
  "STOPPING",
  "COMPLETED",
  "FAILED",
  "PREEMPTED",
  "CANCELLED",
  "KILLED",
  "LOST",
] as const;
export type JobState = (typeof JOB_STATES)[number];
