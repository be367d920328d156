-- CreateEnum
CREATE TYPE "OidcMatch" AS ENUM ('EMAIL_DOMAIN', 'GROUP');

-- CreateTable
CREATE TABLE "password_setup_token" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "createdBy" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "usedAt" TIMESTAMPTZ(3),

    CONSTRAINT "password_setup_token_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "oidc_role_rule" (
    "id" TEXT NOT NULL,
    "match" "OidcMatch" NOT NULL,
    "value" TEXT NOT NULL,
    "role" "Role" NOT NULL,
    "budgetPaths" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oidc_role_rule_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "password_setup_token_tokenHash_key" ON "password_setup_token"("tokenHash");

-- CreateIndex
CREATE INDEX "password_setup_token_userId_idx" ON "password_setup_token"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "oidc_role_rule_match_value_key" ON "oidc_role_rule"("match", "value");

-- CreateIndex
CREATE INDEX "audit_log_action_at_idx" ON "audit_log"("action", "at");

-- CreateIndex
CREATE INDEX "audit_log_actorId_at_idx" ON "audit_log"("actorId", "at");

-- AddForeignKey
ALTER TABLE "password_setup_token" ADD CONSTRAINT "password_setup_token_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;
