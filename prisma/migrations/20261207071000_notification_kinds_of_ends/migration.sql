-- A notification's kind now names how the job ended: a preempted job that is not requeued (PREEMPTED),
-- one killed at its maximum runtime (KILLED) and one lost with its node (LOST) had all been filed as
-- FAILED, which the inbox showed as "failed" although the job's own code had not failed. Only the
-- kind changes: the titles and sentences are the same.
CREATE OR REPLACE FUNCTION tranche_notify_job_events() RETURNS trigger LANGUAGE plpgsql AS E'
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
  WHERE e.kind IN (''STARTED'', ''PREEMPTED'', ''FINISHED'', ''FAILED'', ''KILLED'', ''PREEMPTED_ENDED'', ''RETRIED'')
     OR (e.kind = ''LOST'' AND COALESCE((e.details->>''requeued'')::boolean, false) = false)\x3B
  RETURN NULL\x3B
END ';
