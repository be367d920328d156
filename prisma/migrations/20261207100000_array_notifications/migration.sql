-- Notifications of a job array come once per array, as Slurm mails them (unless --mail-type=ARRAY_TASKS):
-- a 1,000-task sweep had written 2,000 notifications (a start and an end per task), and as many webhook
-- POSTs, which buried the ones that matter. A task of an array now notifies nothing of its own start,
-- finish or preemption warning. Its array notifies once when its first task starts ("Array sweep (#120)
-- started: 20 tasks") and once when its last task ends, with how its tasks ended ("Array sweep (#120)
-- ended: 18 finished, 2 failed (tasks 3 and 7)"). A task that fails, is killed, lost, preempted without a
-- requeue or retried still notifies at once, since the researcher may have a bug to fix before the rest of
-- the sweep runs into it, but at most once per array every 30 minutes: the rest are counted in the summary.
-- Jobs that are not tasks of an array notify as before.

-- One row per array that notified: when its start and its end were notified and when a task's failure
-- last was. Each transaction that records an end of one of the array's tasks locks this row until it
-- commits, so of two tasks ending at once in two transactions the second sees the first's end and
-- exactly one of them writes the summary. No foreign key to the job: checking one would lock the array's
-- first job row, out of the order in which transactions lock job rows (lock-order.ts), and jobs are never
-- deleted.
CREATE TABLE "job_array_notice" (
    "arrayJobId" INTEGER NOT NULL,
    "startedAt" TIMESTAMPTZ(3),
    "endedAt" TIMESTAMPTZ(3),
    "lastTroubleAt" TIMESTAMPTZ(3),

    CONSTRAINT "job_array_notice_pkey" PRIMARY KEY ("arrayJobId")
);

-- Arrays that started before this change have had their start notified (task by task): they get no
-- second start, and those that have already ended no summary.
INSERT INTO job_array_notice ("arrayJobId", "startedAt", "endedAt")
SELECT "arrayJobId", min("startedAt"),
       CASE WHEN bool_and(state NOT IN ('PENDING', 'HELD', 'RUNNING', 'STOPPING')) THEN now() END
FROM job WHERE "arrayJobId" IS NOT NULL
GROUP BY "arrayJobId" HAVING min("startedAt") IS NOT NULL;

-- The tasks of a summary in words: " (task 3)", " (tasks 3 and 7)", " (tasks 3, 7, 9 and 12 more)".
CREATE FUNCTION tranche_array_task_list(idx int[]) RETURNS text LANGUAGE sql IMMUTABLE AS E'
  SELECT CASE COALESCE(cardinality(idx), 0)
           WHEN 0 THEN ''''
           WHEN 1 THEN '' (task '' || idx[1] || '')''
           WHEN 2 THEN '' (tasks '' || idx[1] || '' and '' || idx[2] || '')''
           WHEN 3 THEN '' (tasks '' || idx[1] || '', '' || idx[2] || '' and '' || idx[3] || '')''
           ELSE '' (tasks '' || idx[1] || '', '' || idx[2] || '', '' || idx[3] || '' and '' || (cardinality(idx) - 3) || '' more)''
         END
';

-- One array's notifications for the events one statement recorded on its tasks: its start (the first
-- start of any task), its end (once no task is waiting or running), or a task's failure (at most one per
-- 30 minutes). `started`/`ended`: when a task started or ended in the statement (null: none did),
-- `trouble`: the event of the first task that failed in it (null: none did).
CREATE FUNCTION tranche_notify_array(arr int, started timestamptz, ended timestamptz, trouble bigint) RETURNS void LANGUAGE plpgsql AS E'
DECLARE
  n job_array_notice\x3B
  head record\x3B
  s record\x3B
  t record\x3B
  how text\x3B
BEGIN
  -- A later start of an array whose start was notified: nothing to do, and no lock to wait for.
  IF ended IS NULL AND trouble IS NULL
     AND EXISTS (SELECT 1 FROM job_array_notice x WHERE x."arrayJobId" = arr AND x."startedAt" IS NOT NULL) THEN
    RETURN\x3B
  END IF\x3B
  -- The array''s row, locked until this transaction commits: another transaction recording a start or an
  -- end of the same array waits here, and the statements below (each reads what was committed before it
  -- began) then see this one''s tasks as they were committed.
  INSERT INTO job_array_notice AS x ("arrayJobId") VALUES (arr)
    ON CONFLICT ("arrayJobId") DO UPDATE SET "endedAt" = x."endedAt"
    RETURNING x.* INTO n\x3B
  SELECT j.name, j."userId", c.name AS cluster, u."webhookUrl" IS NOT NULL AS hook,
         (SELECT count(*) FROM job a WHERE a."arrayJobId" = arr)::int AS tasks
    INTO head
    FROM job j JOIN cluster c ON c.id = j."clusterId" JOIN "user" u ON u.id = j."userId"
    WHERE j.id = arr\x3B

  IF started IS NOT NULL AND n."startedAt" IS NULL THEN
    UPDATE job_array_notice SET "startedAt" = started WHERE "arrayJobId" = arr\x3B
    n."startedAt" := started\x3B
    INSERT INTO notification ("userId", "jobId", kind, title, sentence, details, "createdAt", "webhookState")
    VALUES (head."userId", arr, ''STARTED'',
            ''Array '' || head.name || '' (#'' || arr || '') started: '' || head.tasks || CASE WHEN head.tasks = 1 THEN '' task'' ELSE '' tasks'' END,
            ''Its first task started on '' || head.cluster || ''. Its tasks are not notified one by one: one notification comes''
              || '' when the last of them ends, saying how each ended, and a task that fails is notified at once,''
              || '' at most one every 30 minutes.'',
            jsonb_build_object(''event'', ''STARTED'', ''cluster'', head.cluster, ''array'', jsonb_build_object(''id'', arr, ''tasks'', head.tasks)),
            started,
            CASE WHEN head.hook THEN ''PENDING'' END)\x3B
  END IF\x3B

  IF ended IS NOT NULL AND n."endedAt" IS NULL
     AND NOT EXISTS (SELECT 1 FROM job a WHERE a."arrayJobId" = arr AND a.state IN (''PENDING'', ''HELD'', ''RUNNING'', ''STOPPING'')) THEN
    UPDATE job_array_notice SET "endedAt" = ended WHERE "arrayJobId" = arr\x3B
    -- An array cancelled before any of its tasks started notifies nothing, as a job cancelled before it
    -- started does not.
    IF n."startedAt" IS NULL THEN
      RETURN\x3B
    END IF\x3B
    SELECT count(*) FILTER (WHERE a.state = ''COMPLETED'')::int AS finished,
           count(*) FILTER (WHERE a.state = ''FAILED'')::int AS failed,
           count(*) FILTER (WHERE a.state = ''KILLED'')::int AS killed,
           count(*) FILTER (WHERE a.state = ''PREEMPTED'')::int AS preempted,
           count(*) FILTER (WHERE a.state = ''LOST'')::int AS lost,
           count(*) FILTER (WHERE a.state = ''CANCELLED'')::int AS cancelled,
           COALESCE(array_agg(a."arrayIndex" ORDER BY a."arrayIndex") FILTER (WHERE a.state = ''FAILED''), ''{}'') AS "failedTasks",
           COALESCE(array_agg(a."arrayIndex" ORDER BY a."arrayIndex") FILTER (WHERE a.state = ''KILLED''), ''{}'') AS "killedTasks",
           COALESCE(array_agg(a."arrayIndex" ORDER BY a."arrayIndex") FILTER (WHERE a.state = ''PREEMPTED''), ''{}'') AS "preemptedTasks",
           COALESCE(array_agg(a."arrayIndex" ORDER BY a."arrayIndex") FILTER (WHERE a.state = ''LOST''), ''{}'') AS "lostTasks"
      INTO s
      FROM job a WHERE a."arrayJobId" = arr\x3B
    how := concat_ws('', '',
      CASE WHEN s.finished > 0 THEN s.finished || '' finished'' END,
      CASE WHEN s.failed > 0 THEN s.failed || '' failed'' || tranche_array_task_list(s."failedTasks") END,
      CASE WHEN s.killed > 0 THEN s.killed || '' killed at the maximum runtime'' || tranche_array_task_list(s."killedTasks") END,
      CASE WHEN s.preempted > 0 THEN s.preempted || '' preempted and not requeued'' || tranche_array_task_list(s."preemptedTasks") END,
      CASE WHEN s.lost > 0 THEN s.lost || '' lost with a node'' || tranche_array_task_list(s."lostTasks") END,
      CASE WHEN s.cancelled > 0 THEN s.cancelled || '' cancelled'' END)\x3B
    -- The array''s kind is how it ended as a whole, as an :ok dependency on it reads it: FINISHED when every
    -- task finished, FAILED when any failed, was killed, lost or preempted without a requeue, and
    -- CANCELLED when the others were cancelled.
    INSERT INTO notification ("userId", "jobId", kind, title, sentence, details, "createdAt", "webhookState")
    VALUES (head."userId", arr,
            CASE WHEN s.finished = head.tasks THEN ''FINISHED''
                 WHEN s.failed + s.killed + s.preempted + s.lost > 0 THEN ''FAILED''
                 ELSE ''CANCELLED'' END,
            ''Array '' || head.name || '' (#'' || arr || '') ended: ''
              || CASE WHEN s.finished = head.tasks THEN CASE WHEN head.tasks = 1 THEN ''its task finished'' ELSE ''all '' || head.tasks || '' tasks finished'' END
                      ELSE how END,
            ''The last of its '' || head.tasks || CASE WHEN head.tasks = 1 THEN '' task'' ELSE '' tasks'' END || '' ended on '' || head.cluster
              || ''. Each task has its own page, with its exit code and its log.'',
            jsonb_build_object(
              ''event'', ''ENDED'', ''cluster'', head.cluster,
              ''array'', jsonb_build_object(''id'', arr, ''tasks'', head.tasks),
              ''counts'', jsonb_build_object(''finished'', s.finished, ''failed'', s.failed, ''killed'', s.killed,
                                           ''preempted'', s.preempted, ''lost'', s.lost, ''cancelled'', s.cancelled),
              ''tasks'', jsonb_build_object(''failed'', (s."failedTasks")[1:100], ''killed'', (s."killedTasks")[1:100],
                                          ''preempted'', (s."preemptedTasks")[1:100], ''lost'', (s."lostTasks")[1:100])),
            ended,
            CASE WHEN head.hook THEN ''PENDING'' END)\x3B
    -- The summary counts the failures of this statement too.
    RETURN\x3B
  END IF\x3B

  IF trouble IS NOT NULL THEN
    SELECT e."jobId", e.kind, e.sentence, e.details, e.at, j."arrayIndex", j.state::text AS state
      INTO t FROM job_event e JOIN job j ON j.id = e."jobId" WHERE e.id = trouble\x3B
    IF n."lastTroubleAt" IS NULL OR t.at >= n."lastTroubleAt" + interval ''30 minutes'' THEN
      UPDATE job_array_notice SET "lastTroubleAt" = t.at WHERE "arrayJobId" = arr\x3B
      INSERT INTO notification ("userId", "jobId", kind, title, sentence, details, "createdAt", "webhookState")
      VALUES (head."userId", t."jobId",
              CASE t.kind WHEN ''PREEMPTED_ENDED'' THEN ''PREEMPTED'' ELSE t.kind END,
              ''Task '' || t."arrayIndex" || '' of array '' || head.name || '' (#'' || arr || '') ''
                || CASE t.kind
                     WHEN ''RETRIED'' THEN ''failed and was requeued for a retry''
                     WHEN ''KILLED'' THEN ''was killed at its maximum runtime''
                     WHEN ''LOST'' THEN ''was lost with its node''
                     WHEN ''PREEMPTED_ENDED'' THEN ''was preempted and not requeued''
                     ELSE ''failed''
                   END,
              t.sentence || '' Other tasks of this array that fail in the next 30 minutes are not notified one by one:''
                || '' the notification when the array ends counts them.'',
              jsonb_build_object(''event'', t.kind, ''cluster'', head.cluster, ''state'', t.state,
                                 ''array'', jsonb_build_object(''id'', arr, ''index'', t."arrayIndex")) || COALESCE(t.details, ''{}''::jsonb),
              t.at,
              CASE WHEN head.hook THEN ''PENDING'' END)\x3B
    END IF\x3B
  END IF\x3B
END
';

-- A task of an array goes to its array's notifications (tranche_notify_array), in array id order so that
-- two statements that touch the same arrays take their rows in one order. Other jobs notify as before.
CREATE OR REPLACE FUNCTION tranche_notify_job_events() RETURNS trigger LANGUAGE plpgsql AS E'
DECLARE
  a record\x3B
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
             WHEN ''PREEMPTED_ENDED'' THEN ''PREEMPTED''
             WHEN ''KILLED'' THEN ''KILLED''
             WHEN ''LOST'' THEN ''LOST''
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
  WHERE j."arrayJobId" IS NULL
    AND (e.kind IN (''STARTED'', ''PREEMPTED'', ''FINISHED'', ''FAILED'', ''KILLED'', ''PREEMPTED_ENDED'', ''RETRIED'')
         OR (e.kind = ''LOST'' AND COALESCE((e.details->>''requeued'')::boolean, false) = false))\x3B

  FOR a IN
    SELECT j."arrayJobId" AS id,
           min(e.at) FILTER (WHERE e.kind = ''STARTED'') AS started,
           max(e.at) FILTER (WHERE x.ended) AS ended,
           (array_agg(e.id ORDER BY j."arrayIndex", e.id) FILTER (WHERE x.trouble))[1] AS trouble
    FROM new_events e
    JOIN job j ON j.id = e."jobId"
    CROSS JOIN LATERAL (
      SELECT e.kind IN (''FINISHED'', ''FAILED'', ''KILLED'', ''PREEMPTED_ENDED'', ''CANCELLED'')
               OR (e.kind = ''LOST'' AND COALESCE((e.details->>''requeued'')::boolean, false) = false) AS ended,
             e.kind IN (''FAILED'', ''KILLED'', ''PREEMPTED_ENDED'', ''RETRIED'')
               OR (e.kind = ''LOST'' AND COALESCE((e.details->>''requeued'')::boolean, false) = false) AS trouble
    ) x
    WHERE j."arrayJobId" IS NOT NULL AND (e.kind = ''STARTED'' OR x.ended OR x.trouble)
    GROUP BY j."arrayJobId"
    ORDER BY j."arrayJobId"
  LOOP
    PERFORM tranche_notify_array(a.id, a.started, a.ended, a.trouble)\x3B
  END LOOP\x3B
  RETURN NULL\x3B
END
';
