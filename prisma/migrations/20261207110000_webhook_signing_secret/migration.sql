-- The key each user's webhook POSTs are signed with (Standard Webhooks headers), shown to its user only
-- when it is made. A table of its own, not a column of "user": the sign-in library reads user rows whole.
-- Webhooks set before this have no key: their POSTs go unsigned until their owner sets the webhook again
-- or asks for a new secret (the notifications page says so).
CREATE TABLE "webhook_secret" (
    "userId" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_secret_pkey" PRIMARY KEY ("userId")
);

ALTER TABLE "webhook_secret" ADD CONSTRAINT "webhook_secret_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;
