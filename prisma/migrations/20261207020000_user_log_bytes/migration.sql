-- The log bytes the control plane keeps for all of a user's jobs (TRANCHE_LOG_USER_BYTES): a counter kept
-- beside each job's, so the heartbeat that stores logs reads one row instead of summing the user's jobs.
-- A table of its own, not a column of "user": the sign-in library reads user rows whole.
CREATE TABLE "user_log_usage" (
    "userId" TEXT NOT NULL,
    "bytes" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "user_log_usage_pkey" PRIMARY KEY ("userId")
);

ALTER TABLE "user_log_usage" ADD CONSTRAINT "user_log_usage_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

INSERT INTO "user_log_usage" ("userId", "bytes")
SELECT "userId", SUM("logBytes")::bigint FROM job GROUP BY "userId" HAVING SUM("logBytes") > 0;
