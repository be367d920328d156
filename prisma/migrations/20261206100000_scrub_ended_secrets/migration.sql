-- A job's secret environment values are handed to its processes and shown to nobody. Once the job has
-- ended for good (a retried or requeued job goes back to PENDING, never through these states) no one
-- reads them again, and a copy of the database, a backup, must not carry them: the values become empty
-- strings and the names stay (the job page lists them). Every path that ends a job sets its state, so
-- one trigger covers them all.
-- (Function bodies are E'' strings with each semicolon written \x3B: the migration runner splits the
-- file at every semicolon, inside quotes too.)
CREATE FUNCTION tranche_scrub_ended_secrets() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  NEW."secretEnv" := (SELECT COALESCE(jsonb_object_agg(key, ''''), ''{}''::jsonb) FROM jsonb_each(NEW."secretEnv"))\x3B
  RETURN NEW\x3B
END ';
CREATE TRIGGER job_scrub_ended_secrets BEFORE UPDATE OF state ON job
  FOR EACH ROW WHEN (
    NEW.state IN ('COMPLETED', 'FAILED', 'CANCELLED', 'KILLED', 'LOST')
    AND OLD.state IS DISTINCT FROM NEW.state
    AND NEW."secretEnv" <> '{}'::jsonb
  )
  EXECUTE FUNCTION tranche_scrub_ended_secrets();
-- Jobs that ended before this migration.
UPDATE job SET "secretEnv" = (SELECT COALESCE(jsonb_object_agg(key, ''), '{}'::jsonb) FROM jsonb_each("secretEnv"))
WHERE state IN ('COMPLETED', 'FAILED', 'CANCELLED', 'KILLED', 'LOST') AND "secretEnv" <> '{}'::jsonb;
