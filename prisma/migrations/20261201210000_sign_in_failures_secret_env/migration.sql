-- AlterTable
ALTER TABLE "job" ADD COLUMN     "secretEnv" JSONB NOT NULL DEFAULT '{}';

-- CreateTable
CREATE TABLE "sign_in_failure" (
    "key" TEXT NOT NULL,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "windowStart" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lockedUntil" TIMESTAMPTZ(3),

    CONSTRAINT "sign_in_failure_pkey" PRIMARY KEY ("key")
);
