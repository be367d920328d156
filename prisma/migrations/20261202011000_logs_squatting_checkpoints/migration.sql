-- Squatting: the idle streak's start is kept apart from the flag (raised only after 30 minutes).
-- Rows flagged under the old rule (set on one idle reading) become streaks, and the next reports decide.
ALTER TABLE "job" ADD COLUMN "idleSince" TIMESTAMPTZ(3);
UPDATE "job" SET "idleSince" = "squattingSince", "squattingSince" = NULL WHERE "squattingSince" IS NOT NULL;

-- Checkpoints across hosts: the last checkpoint time a job reported.
ALTER TABLE "job" ADD COLUMN "lastCheckpointAt" TIMESTAMPTZ(3);

-- Log retention keeps the newest bytes: how many older ones were dropped.
ALTER TABLE "job" ADD COLUMN "logDroppedBytes" BIGINT NOT NULL DEFAULT 0;

-- Optional cluster policy: protection of a job flagged as squatting ends after this many seconds.
ALTER TABLE "cluster" ADD COLUMN "squattingUnprotectAfterSec" INTEGER;

-- Following a log to its end: when the agent said a run's output was all uploaded, and its latest exit report.
ALTER TABLE "run_segment" ADD COLUMN "logsCompleteAt" TIMESTAMPTZ(3);
ALTER TABLE "run_segment" ADD COLUMN "lastExitReportAt" TIMESTAMPTZ(3);
