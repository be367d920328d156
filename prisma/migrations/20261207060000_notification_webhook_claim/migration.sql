-- When a webhook delivery round claimed a notification (null: not claimed). The round marks the rows it
-- takes and commits before it POSTs, so no transaction or row lock is held while receivers answer. A
-- claim older than its round could still be running (a worker that died mid-round) is taken again.
ALTER TABLE "notification" ADD COLUMN "webhookClaimedAt" TIMESTAMPTZ(3);
