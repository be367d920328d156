-- A waiting job's contract may be changed (update-job.ts). Each change counts up its revision, and a
-- cycle starts a job only at the revision its snapshot read, so a plan made for the old contract (its
-- GPUs placed, its old budget charged) is never applied to the new one.
ALTER TABLE "job" ADD COLUMN "revision" INTEGER NOT NULL DEFAULT 0;
