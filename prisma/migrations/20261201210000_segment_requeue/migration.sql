-- The core's requeue decision for a stopped run (its PREEMPT op's `requeue`), applied when the run ends.
ALTER TABLE "run_segment" ADD COLUMN "requeue" BOOLEAN;
