-- The secret a new one replaced, and until when it still signs webhook POSTs beside the new one (a day
-- after the replacement), so a receiver not yet given the new secret keeps verifying them meanwhile.
ALTER TABLE "webhook_secret" ADD COLUMN "previousSecret" TEXT,
ADD COLUMN "previousUntil" TIMESTAMPTZ(3);
