-- Which node wrote a log chunk, so the logs of a multi-node job can say which node each line came from.
ALTER TABLE "job_log_chunk" ADD COLUMN "node" TEXT;
