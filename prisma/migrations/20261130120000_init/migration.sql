-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "Role" AS ENUM ('RESEARCHER', 'MANAGER', 'OPERATOR', 'ADMIN');

-- CreateEnum
CREATE TYPE "NodeState" AS ENUM ('READY', 'CORDONED', 'DRAINING', 'REPAIR', 'DOWN');

-- CreateEnum
CREATE TYPE "NodeHealth" AS ENUM ('HEALTHY', 'UNHEALTHY');

-- CreateEnum
CREATE TYPE "JobState" AS ENUM ('PENDING', 'HELD', 'RUNNING', 'STOPPING', 'COMPLETED', 'FAILED', 'CANCELLED', 'KILLED', 'LOST');

-- CreateEnum
CREATE TYPE "RequeuePolicy" AS ENUM ('REQUEUE', 'NEVER');

-- CreateEnum
CREATE TYPE "SegmentEnd" AS ENUM ('FINISH', 'FAIL', 'PREEMPT', 'KILL', 'LOST', 'CANCEL');

-- CreateEnum
CREATE TYPE "ActorKind" AS ENUM ('USER', 'SCHEDULER', 'OPERATOR', 'AGENT', 'SYSTEM');

-- CreateTable
CREATE TABLE "user" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "role" "Role" NOT NULL DEFAULT 'RESEARCHER',
    "emailVerified" BOOLEAN NOT NULL DEFAULT false,
    "image" TEXT,
    "disabledAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "user_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "session" (
    "id" TEXT NOT NULL,
    "token" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "ipAddress" TEXT,
    "userAgent" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "session_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "account" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "providerId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "accessToken" TEXT,
    "refreshToken" TEXT,
    "idToken" TEXT,
    "accessTokenExpiresAt" TIMESTAMPTZ(3),
    "refreshTokenExpiresAt" TIMESTAMPTZ(3),
    "scope" TEXT,
    "password" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "account_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "verification" (
    "id" TEXT NOT NULL,
    "identifier" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "verification_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_token" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMPTZ(3),
    "expiresAt" TIMESTAMPTZ(3),
    "revokedAt" TIMESTAMPTZ(3),

    CONSTRAINT "api_token_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "budget_tree_node" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "parentId" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "archivedAt" TIMESTAMPTZ(3),

    CONSTRAINT "budget_tree_node_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "budget_member" (
    "budgetId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "budget_member_pkey" PRIMARY KEY ("budgetId","userId")
);

-- CreateTable
CREATE TABLE "budget_manager" (
    "treeNodeId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "budget_manager_pkey" PRIMARY KEY ("treeNodeId","userId")
);

-- CreateTable
CREATE TABLE "allocation" (
    "treeNodeId" TEXT NOT NULL,
    "clusterId" TEXT NOT NULL,
    "ppm" INTEGER NOT NULL,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "allocation_pkey" PRIMARY KEY ("treeNodeId","clusterId")
);

-- CreateTable
CREATE TABLE "allocation_change" (
    "id" BIGSERIAL NOT NULL,
    "treeNodeId" TEXT NOT NULL,
    "clusterId" TEXT NOT NULL,
    "fromPpm" INTEGER NOT NULL,
    "toPpm" INTEGER NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actorId" TEXT,
    "note" TEXT,

    CONSTRAINT "allocation_change_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "cluster" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "gpuType" TEXT NOT NULL,
    "maxMinRuntimeSec" INTEGER NOT NULL DEFAULT 28800,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "cluster_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "node" (
    "id" TEXT NOT NULL,
    "clusterId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "gpuCount" INTEGER NOT NULL,
    "state" "NodeState" NOT NULL DEFAULT 'DOWN',
    "health" "NodeHealth" NOT NULL DEFAULT 'HEALTHY',
    "healthDetails" JSONB NOT NULL DEFAULT '{}',
    "gpuInventory" JSONB NOT NULL DEFAULT '[]',
    "busyPercent" DOUBLE PRECISION,
    "lastHeartbeatAt" TIMESTAMPTZ(3),
    "agentCredentialHash" TEXT,
    "agentVersion" TEXT,
    "stateReason" TEXT,
    "stateChangedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "drainIsManual" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "node_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "node_event" (
    "id" BIGSERIAL NOT NULL,
    "nodeId" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "fromState" "NodeState",
    "toState" "NodeState" NOT NULL,
    "reason" TEXT NOT NULL,
    "automatic" BOOLEAN NOT NULL DEFAULT true,
    "actorId" TEXT,

    CONSTRAINT "node_event_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "enrollment_token" (
    "id" TEXT NOT NULL,
    "clusterId" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "createdBy" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "usedAt" TIMESTAMPTZ(3),
    "nodeName" TEXT,

    CONSTRAINT "enrollment_token_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "job" (
    "id" SERIAL NOT NULL,
    "clusterId" TEXT NOT NULL,
    "budgetId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "gpus" INTEGER NOT NULL,
    "minRuntimeSec" INTEGER NOT NULL,
    "maxRuntimeSec" INTEGER,
    "resumable" BOOLEAN NOT NULL DEFAULT false,
    "priority" INTEGER NOT NULL DEFAULT 0,
    "requeuePolicy" "RequeuePolicy" NOT NULL DEFAULT 'REQUEUE',
    "gracePeriodSec" INTEGER,
    "command" TEXT NOT NULL,
    "env" JSONB NOT NULL DEFAULT '{}',
    "state" "JobState" NOT NULL DEFAULT 'PENDING',
    "submittedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "queuedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "requeueCount" INTEGER NOT NULL DEFAULT 0,
    "heldBy" TEXT,
    "startedAt" TIMESTAMPTZ(3),
    "protectedUntil" TIMESTAMPTZ(3),
    "graceUntil" TIMESTAMPTZ(3),
    "finishedAt" TIMESTAMPTZ(3),
    "exitCode" INTEGER,
    "exitSignal" TEXT,
    "reasonCode" TEXT,
    "reasonSentence" TEXT,
    "reasonDetails" JSONB,
    "queuePosition" INTEGER,
    "reasonCycleId" BIGINT,
    "squattingSince" TIMESTAMPTZ(3),
    "idempotencyKey" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "job_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "run_segment" (
    "id" BIGSERIAL NOT NULL,
    "jobId" INTEGER NOT NULL,
    "clusterId" TEXT NOT NULL,
    "budgetId" TEXT NOT NULL,
    "gpus" INTEGER NOT NULL,
    "startedAt" TIMESTAMPTZ(3) NOT NULL,
    "protectedUntil" TIMESTAMPTZ(3),
    "endedAt" TIMESTAMPTZ(3),
    "charged" BOOLEAN NOT NULL,
    "endReason" "SegmentEnd",
    "endDetail" TEXT,
    "chargedUntil" TIMESTAMPTZ(3),
    "startCycleId" BIGINT,

    CONSTRAINT "run_segment_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "segment_placement" (
    "segmentId" BIGINT NOT NULL,
    "nodeId" TEXT NOT NULL,
    "gpuIndexes" INTEGER[],

    CONSTRAINT "segment_placement_pkey" PRIMARY KEY ("segmentId","nodeId")
);

-- CreateTable
CREATE TABLE "job_event" (
    "id" BIGSERIAL NOT NULL,
    "jobId" INTEGER NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "kind" TEXT NOT NULL,
    "reasonCode" TEXT,
    "sentence" TEXT NOT NULL,
    "details" JSONB NOT NULL DEFAULT '{}',
    "actorKind" "ActorKind" NOT NULL,
    "actorId" TEXT,
    "cycleId" BIGINT,

    CONSTRAINT "job_event_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "job_log_chunk" (
    "id" BIGSERIAL NOT NULL,
    "jobId" INTEGER NOT NULL,
    "segmentId" BIGINT,
    "stream" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "text" TEXT NOT NULL,

    CONSTRAINT "job_log_chunk_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "scheduling_cycle" (
    "id" BIGSERIAL NOT NULL,
    "clusterId" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "durationMs" DOUBLE PRECISION NOT NULL,
    "loadMs" DOUBLE PRECISION NOT NULL,
    "decideMs" DOUBLE PRECISION NOT NULL,
    "applyMs" DOUBLE PRECISION NOT NULL,
    "pendingCount" INTEGER NOT NULL,
    "runningCount" INTEGER NOT NULL,
    "started" INTEGER NOT NULL,
    "preempted" INTEGER NOT NULL,
    "leaderId" TEXT NOT NULL,
    "ratios" JSONB NOT NULL DEFAULT '[]',
    "reservations" JSONB NOT NULL DEFAULT '[]',
    "stats" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "scheduling_cycle_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "usage_ledger" (
    "budgetId" TEXT NOT NULL,
    "clusterId" TEXT NOT NULL,
    "hourStart" TIMESTAMPTZ(3) NOT NULL,
    "gpuSeconds" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "usage_ledger_pkey" PRIMARY KEY ("budgetId","clusterId","hourStart")
);

-- CreateTable
CREATE TABLE "capacity_ledger" (
    "clusterId" TEXT NOT NULL,
    "hourStart" TIMESTAMPTZ(3) NOT NULL,
    "healthyGpuSeconds" BIGINT NOT NULL DEFAULT 0,
    "totalGpuSeconds" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "capacity_ledger_pkey" PRIMARY KEY ("clusterId","hourStart")
);

-- CreateTable
CREATE TABLE "worker_lease" (
    "name" TEXT NOT NULL,
    "holderId" TEXT NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "lastCycleAt" TIMESTAMPTZ(3),
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "worker_lease_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "audit_log" (
    "id" BIGSERIAL NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actorId" TEXT,
    "action" TEXT NOT NULL,
    "targetType" TEXT NOT NULL,
    "targetId" TEXT NOT NULL,
    "details" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "user_email_key" ON "user"("email");

-- CreateIndex
CREATE UNIQUE INDEX "session_token_key" ON "session"("token");

-- CreateIndex
CREATE INDEX "session_userId_idx" ON "session"("userId");

-- CreateIndex
CREATE INDEX "account_userId_idx" ON "account"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "account_providerId_accountId_key" ON "account"("providerId", "accountId");

-- CreateIndex
CREATE INDEX "verification_identifier_idx" ON "verification"("identifier");

-- CreateIndex
CREATE UNIQUE INDEX "api_token_tokenHash_key" ON "api_token"("tokenHash");

-- CreateIndex
CREATE INDEX "api_token_userId_idx" ON "api_token"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "budget_tree_node_path_key" ON "budget_tree_node"("path");

-- CreateIndex
CREATE UNIQUE INDEX "budget_tree_node_parentId_name_key" ON "budget_tree_node"("parentId", "name");

-- CreateIndex
CREATE INDEX "budget_member_userId_idx" ON "budget_member"("userId");

-- CreateIndex
CREATE INDEX "budget_manager_userId_idx" ON "budget_manager"("userId");

-- CreateIndex
CREATE INDEX "allocation_clusterId_idx" ON "allocation"("clusterId");

-- CreateIndex
CREATE INDEX "allocation_change_clusterId_at_idx" ON "allocation_change"("clusterId", "at");

-- CreateIndex
CREATE INDEX "allocation_change_treeNodeId_clusterId_at_idx" ON "allocation_change"("treeNodeId", "clusterId", "at");

-- CreateIndex
CREATE UNIQUE INDEX "cluster_name_key" ON "cluster"("name");

-- CreateIndex
CREATE UNIQUE INDEX "node_name_key" ON "node"("name");

-- CreateIndex
CREATE UNIQUE INDEX "node_agentCredentialHash_key" ON "node"("agentCredentialHash");

-- CreateIndex
CREATE INDEX "node_clusterId_state_idx" ON "node"("clusterId", "state");

-- CreateIndex
CREATE INDEX "node_event_nodeId_at_idx" ON "node_event"("nodeId", "at");

-- CreateIndex
CREATE UNIQUE INDEX "enrollment_token_tokenHash_key" ON "enrollment_token"("tokenHash");

-- CreateIndex
CREATE UNIQUE INDEX "job_idempotencyKey_key" ON "job"("idempotencyKey");

-- CreateIndex
CREATE INDEX "job_clusterId_state_idx" ON "job"("clusterId", "state");

-- CreateIndex
CREATE INDEX "job_budgetId_state_idx" ON "job"("budgetId", "state");

-- CreateIndex
CREATE INDEX "job_userId_submittedAt_idx" ON "job"("userId", "submittedAt");

-- CreateIndex
CREATE INDEX "run_segment_jobId_idx" ON "run_segment"("jobId");

-- CreateIndex
CREATE INDEX "run_segment_clusterId_endedAt_idx" ON "run_segment"("clusterId", "endedAt");

-- CreateIndex
CREATE INDEX "run_segment_clusterId_startedAt_idx" ON "run_segment"("clusterId", "startedAt");

-- CreateIndex
CREATE INDEX "segment_placement_nodeId_idx" ON "segment_placement"("nodeId");

-- CreateIndex
CREATE INDEX "job_event_jobId_at_idx" ON "job_event"("jobId", "at");

-- CreateIndex
CREATE INDEX "job_event_at_idx" ON "job_event"("at");

-- CreateIndex
CREATE INDEX "job_log_chunk_jobId_id_idx" ON "job_log_chunk"("jobId", "id");

-- CreateIndex
CREATE INDEX "scheduling_cycle_clusterId_at_idx" ON "scheduling_cycle"("clusterId", "at");

-- CreateIndex
CREATE INDEX "usage_ledger_clusterId_hourStart_idx" ON "usage_ledger"("clusterId", "hourStart");

-- CreateIndex
CREATE INDEX "audit_log_targetType_targetId_idx" ON "audit_log"("targetType", "targetId");

-- CreateIndex
CREATE INDEX "audit_log_at_idx" ON "audit_log"("at");

-- AddForeignKey
ALTER TABLE "session" ADD CONSTRAINT "session_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "account" ADD CONSTRAINT "account_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_token" ADD CONSTRAINT "api_token_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "budget_tree_node" ADD CONSTRAINT "budget_tree_node_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "budget_tree_node"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "budget_member" ADD CONSTRAINT "budget_member_budgetId_fkey" FOREIGN KEY ("budgetId") REFERENCES "budget_tree_node"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "budget_member" ADD CONSTRAINT "budget_member_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "budget_manager" ADD CONSTRAINT "budget_manager_treeNodeId_fkey" FOREIGN KEY ("treeNodeId") REFERENCES "budget_tree_node"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "budget_manager" ADD CONSTRAINT "budget_manager_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "allocation" ADD CONSTRAINT "allocation_treeNodeId_fkey" FOREIGN KEY ("treeNodeId") REFERENCES "budget_tree_node"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "allocation" ADD CONSTRAINT "allocation_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "allocation_change" ADD CONSTRAINT "allocation_change_treeNodeId_fkey" FOREIGN KEY ("treeNodeId") REFERENCES "budget_tree_node"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "allocation_change" ADD CONSTRAINT "allocation_change_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "allocation_change" ADD CONSTRAINT "allocation_change_actorId_fkey" FOREIGN KEY ("actorId") REFERENCES "user"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "node" ADD CONSTRAINT "node_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "node_event" ADD CONSTRAINT "node_event_nodeId_fkey" FOREIGN KEY ("nodeId") REFERENCES "node"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "enrollment_token" ADD CONSTRAINT "enrollment_token_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "job" ADD CONSTRAINT "job_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "cluster"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "job" ADD CONSTRAINT "job_budgetId_fkey" FOREIGN KEY ("budgetId") REFERENCES "budget_tree_node"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "job" ADD CONSTRAINT "job_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "run_segment" ADD CONSTRAINT "run_segment_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "job"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "run_segment" ADD CONSTRAINT "run_segment_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "run_segment" ADD CONSTRAINT "run_segment_budgetId_fkey" FOREIGN KEY ("budgetId") REFERENCES "budget_tree_node"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "segment_placement" ADD CONSTRAINT "segment_placement_segmentId_fkey" FOREIGN KEY ("segmentId") REFERENCES "run_segment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "segment_placement" ADD CONSTRAINT "segment_placement_nodeId_fkey" FOREIGN KEY ("nodeId") REFERENCES "node"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "job_event" ADD CONSTRAINT "job_event_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "job"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "job_log_chunk" ADD CONSTRAINT "job_log_chunk_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "job"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "scheduling_cycle" ADD CONSTRAINT "scheduling_cycle_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "usage_ledger" ADD CONSTRAINT "usage_ledger_budgetId_fkey" FOREIGN KEY ("budgetId") REFERENCES "budget_tree_node"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "usage_ledger" ADD CONSTRAINT "usage_ledger_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "capacity_ledger" ADD CONSTRAINT "capacity_ledger_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_actorId_fkey" FOREIGN KEY ("actorId") REFERENCES "user"("id") ON DELETE SET NULL ON UPDATE CASCADE;

