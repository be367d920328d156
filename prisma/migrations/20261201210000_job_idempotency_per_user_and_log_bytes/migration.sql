-- Idempotency keys are per user: the same key from two users makes two jobs, and one user's key
-- neither reveals nor blocks another's.
DROP INDEX "job_idempotencyKey_key";
CREATE UNIQUE INDEX "job_userId_idempotencyKey_key" ON "job"("userId", "idempotencyKey");

-- Bytes of log kept per job, so the heartbeat can cap a job's stored log without summing its chunks.
ALTER TABLE "job" ADD COLUMN "logBytes" INTEGER NOT NULL DEFAULT 0;
UPDATE "job" j SET "logBytes" = LEAST(l.bytes, 2147483647)
FROM (SELECT "jobId", SUM(octet_length(text)) AS bytes FROM "job_log_chunk" GROUP BY "jobId") l
WHERE l."jobId" = j.id;
