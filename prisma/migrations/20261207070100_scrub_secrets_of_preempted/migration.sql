-- PREEMPTED is an end state too: a preempted job that is not requeued never runs again, so its secret
-- values are scrubbed like those of every other ended job (20261206100000_scrub_ended_secrets). A
-- migration of its own: Postgres refuses a new enum value inside the transaction that added it, and a
-- runner that wraps each migration in one would otherwise fail here.
DROP TRIGGER job_scrub_ended_secrets ON job;
CREATE TRIGGER job_scrub_ended_secrets BEFORE UPDATE OF state ON job
  FOR EACH ROW WHEN (
    NEW.state IN ('COMPLETED', 'FAILED', 'PREEMPTED', 'CANCELLED', 'KILLED', 'LOST')
    AND OLD.state IS DISTINCT FROM NEW.state
    AND NEW."secretEnv" <> '{}'::jsonb
  )
  EXECUTE FUNCTION tranche_scrub_ended_secrets();
