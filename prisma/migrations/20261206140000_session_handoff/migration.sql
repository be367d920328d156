-- Interactive sessions are served from a host of their own (TRANCHE_SESSIONS_ORIGIN). Opening one
-- hands its owner over from the web app with a one-time ticket, traded there for a cookie good for that
-- session only. Only sha256 hashes of tickets, states and cookies are stored.

-- CreateTable
CREATE TABLE "session_handoff" (
    "id" TEXT NOT NULL,
    "jobId" INTEGER NOT NULL,
    "userId" TEXT NOT NULL,
    "ticketHash" TEXT NOT NULL,
    "stateHash" TEXT NOT NULL,
    "ticketExpiresAt" TIMESTAMPTZ(3) NOT NULL,
    "usedAt" TIMESTAMPTZ(3),
    "grantHash" TEXT,
    "grantExpiresAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "session_handoff_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "session_handoff_ticketHash_key" ON "session_handoff"("ticketHash");

-- CreateIndex
CREATE UNIQUE INDEX "session_handoff_grantHash_key" ON "session_handoff"("grantHash");

-- CreateIndex
CREATE INDEX "session_handoff_jobId_idx" ON "session_handoff"("jobId");

-- CreateIndex
CREATE INDEX "session_handoff_userId_idx" ON "session_handoff"("userId");

-- CreateIndex
CREATE INDEX "session_handoff_ticketExpiresAt_idx" ON "session_handoff"("ticketExpiresAt");

-- AddForeignKey
ALTER TABLE "session_handoff" ADD CONSTRAINT "session_handoff_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "job"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "session_handoff" ADD CONSTRAINT "session_handoff_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

