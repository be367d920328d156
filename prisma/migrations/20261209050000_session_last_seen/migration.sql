-- When a signed-in session last made a request, for the list of a person's sessions. The row's updatedAt
-- moves only when better-auth extends the session (once a day), too coarse to tell devices apart.
ALTER TABLE "session" ADD COLUMN "lastSeenAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
