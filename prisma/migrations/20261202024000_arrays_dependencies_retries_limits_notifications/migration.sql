-- Job arrays, dependencies, retries, per-user budget limits and notifications (issue 14, item 6).

-- Arrays: the array's id is its first task's id.
ALTER TABLE "job" ADD COLUMN "arrayJobId" INTEGER,
  ADD COLUMN "arrayIndex" INTEGER,
  ADD COLUMN "arraySpec" TEXT,
  ADD COLUMN "arrayMaxRunning" INTEGER,
  ADD COLUMN "maxRetries" INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN "retryCount" INTEGER NOT NULL DEFAULT 0;
CREATE INDEX "job_arrayJobId_idx" ON "job"("arrayJobId");

ALTER TABLE "budget_tree_node" ADD COLUMN "maxGpusPerUser" INTEGER;
ALTER TABLE "user" ADD COLUMN "webhookUrl" TEXT;

CREATE TABLE "job_dependency" (
    "jobId" INTEGER NOT NULL,
    "parentId" INTEGER NOT NULL,
    "condition" TEXT NOT NULL,
    CONSTRAINT "job_dependency_pkey" PRIMARY KEY ("jobId","parentId")
);
CREATE INDEX "job_dependency_parentId_idx" ON "job_dependency"("parentId");
ALTER TABLE "job_dependency" ADD CONSTRAINT "job_dependency_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "job"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "job_dependency" ADD CONSTRAINT "job_dependency_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "job"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "notification" (
    "id" BIGSERIAL NOT NULL,
    "userId" TEXT NOT NULL,
    "jobId" INTEGER,
    "kind" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "sentence" TEXT NOT NULL,
    "details" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "readAt" TIMESTAMPTZ(3),
    "webhookState" TEXT,
    "webhookAttempts" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "notification_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "notification_userId_createdAt_idx" ON "notification"("userId", "createdAt");
CREATE INDEX "notification_webhookState_idx" ON "notification"("webhookState");
ALTER TABLE "notification" ADD CONSTRAINT "notification_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "notification" ADD CONSTRAINT "notification_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "job"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- (Function bodies are E'' strings with each semicolon written \x3B: the migration runner splits the
-- file at every semicolon, inside quotes too.)
-- Notifications follow the job's timeline: every path that records one of these events (the worker's
-- plan, an agent's exit report, a retry) notifies the job's owner, in the same transaction. One
-- statement-level trigger, so a cycle that starts 1,000 jobs writes them with one INSERT.
CREATE FUNCTION tranche_notify_job_events() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  INSERT INTO notification ("userId", "jobId", kind, title, sentence, details, "createdAt", "webhookState")
  SELECT j."userId", j.id, k.kind,
         ''Job #'' || j.id || '' ('' || j.name || '') '' || k.verb,
         e.sentence,
         jsonb_build_object(''event'', e.kind, ''cluster'', c.name, ''state'', j.state::text) || COALESCE(e.details, ''{}''::jsonb),
         e.at,
         CASE WHEN u."webhookUrl" IS NOT NULL THEN ''PENDING'' END
  FROM new_events e
  JOIN job j ON j.id = e."jobId"
  JOIN cluster c ON c.id = j."clusterId"
  JOIN "user" u ON u.id = j."userId"
  CROSS JOIN LATERAL (
    SELECT CASE e.kind
             WHEN ''STARTED'' THEN ''STARTED''
             WHEN ''PREEMPTED'' THEN ''PREEMPTION_WARNING''
             WHEN ''FINISHED'' THEN ''FINISHED''
             WHEN ''RETRIED'' THEN ''RETRIED''
             ELSE ''FAILED''
           END AS kind,
           CASE e.kind
             WHEN ''STARTED'' THEN ''started on '' || c.name
             WHEN ''PREEMPTED'' THEN ''is being preempted: it has ''
               || COALESCE((e.details->>''gracePeriod'')::int, 0) || '' s to save its state''
             WHEN ''FINISHED'' THEN ''finished''
             WHEN ''RETRIED'' THEN ''failed and was requeued for a retry''
             WHEN ''KILLED'' THEN ''was killed at its maximum runtime''
             WHEN ''LOST'' THEN ''was lost with its node''
             WHEN ''PREEMPTED_ENDED'' THEN ''was preempted and not requeued''
             ELSE ''failed''
           END AS verb
  ) k
  WHERE e.kind IN (''STARTED'', ''PREEMPTED'', ''FINISHED'', ''FAILED'', ''KILLED'', ''PREEMPTED_ENDED'', ''RETRIED'')
     OR (e.kind = ''LOST'' AND COALESCE((e.details->>''requeued'')::boolean, false) = false)\x3B
  RETURN NULL\x3B
END ';
CREATE TRIGGER job_event_notify AFTER INSERT ON job_event
  REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION tranche_notify_job_events();

-- A job flagged as likely squatting notifies its owner and the managers of its budget and the groups
-- above it, whoever sets the flag.
CREATE FUNCTION tranche_notify_squatting() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  INSERT INTO notification ("userId", "jobId", kind, title, sentence, details, "createdAt", "webhookState")
  SELECT u.id, NEW.id, ''SQUATTING'',
         ''Job #'' || NEW.id || '' ('' || NEW.name || '') looks idle on its GPUs'',
         ''Job #'' || NEW.id || '' of '' || COALESCE(NULLIF(owner.name, ''''), owner.email) || '' in budget '' || b.path
           || '' holds '' || NEW.gpus || '' GPU'' || CASE WHEN NEW.gpus = 1 THEN '''' ELSE ''s'' END
           || '' but has kept them under 5% busy for 30 minutes: it is flagged as likely squatting.'',
         jsonb_build_object(''squattingSince'', NEW."squattingSince", ''budget'', b.path, ''owner'', NEW."userId" = u.id),
         now(),
         CASE WHEN u."webhookUrl" IS NOT NULL THEN ''PENDING'' END
  FROM "user" u
  JOIN "user" owner ON owner.id = NEW."userId"
  JOIN budget_tree_node b ON b.id = NEW."budgetId"
  WHERE u.id = NEW."userId"
     OR u.id IN (
       WITH RECURSIVE up AS (
         SELECT id, "parentId" FROM budget_tree_node WHERE id = NEW."budgetId"
         UNION
         SELECT t.id, t."parentId" FROM budget_tree_node t JOIN up ON t.id = up."parentId"
       )
       SELECT m."userId" FROM budget_manager m JOIN up ON up.id = m."treeNodeId"
     )\x3B
  RETURN NULL\x3B
END ';
CREATE TRIGGER job_squatting_notify AFTER UPDATE OF "squattingSince" ON job
  FOR EACH ROW WHEN (OLD."squattingSince" IS NULL AND NEW."squattingSince" IS NOT NULL)
  EXECUTE FUNCTION tranche_notify_squatting();
