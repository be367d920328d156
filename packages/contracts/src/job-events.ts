// The kinds of event on a job's timeline (job_event.kind) and the title a person reads for each: the job
// page says "Preempted: asked to stop", JSON and tools keep PREEMPTED. Every writer of an event uses
// one of these kinds (the type says so), so every event has its phrase. No zod here, so browser pages
// import it from "@tranche/contracts/events".

export const JOB_EVENT_KINDS = [
  "SUBMITTED",
  "DEPENDENCIES_SET",
  "UPDATED",
  "HELD",
  "RELEASED",
  "STARTED",
  "EXTENDED",
  "MOVED",
  "PREEMPTED",
  "MAX_RUNTIME",
  "CANCEL_REQUESTED",
  "REQUEUED",
  "RETRIED",
  "PREEMPTED_ENDED",
  "FINISHED",
  "FAILED",
  "KILLED",
  "CANCELLED",
  "LOST",
] as const;

export type JobEventKind = (typeof JOB_EVENT_KINDS)[number];

const TITLES: Record<JobEventKind, string> = {
  SUBMITTED: "Submitted",
  DEPENDENCIES_SET: "Waits for other jobs",
  UPDATED: "Changed while waiting",
  HELD: "Held",
  RELEASED: "Released",
  STARTED: "Started",
  EXTENDED: "Protection extended",
  MOVED: "Moved to other GPUs",
  PREEMPTED: "Preempted: asked to stop",
  MAX_RUNTIME: "Reached its maximum runtime",
  CANCEL_REQUESTED: "Asked to stop: cancelled",
  REQUEUED: "Back in the queue",
  RETRIED: "Back in the queue to try again",
  PREEMPTED_ENDED: "Preempted, not requeued",
  FINISHED: "Finished",
  FAILED: "Failed",
  KILLED: "Killed at its maximum runtime",
  CANCELLED: "Cancelled",
  LOST: "Lost with its node",
};

export const isJobEventKind = (kind: string): kind is JobEventKind => Object.hasOwn(TITLES, kind);

/** The title of an event on the timeline; a kind this version does not know reads "Event", never its code. */
export function jobEventTitle(kind: string): string {
  return isJobEventKind(kind) ? TITLES[kind] : "Event";
}
