-- A submission counts the jobs its user already has waiting (PENDING or HELD) against
-- TRANCHE_MAX_WAITING_JOBS_PER_USER: this index keeps that count to the user's waiting jobs instead of
-- every job they ever submitted.
CREATE INDEX "job_userId_state_idx" ON "job"("userId", "state");
