-- Interactive sessions (issue 14, item 4): a job of kind INTERACTIVE runs a shell server or Jupyter
-- that the agent launches on a port it picks. The agent reports where it listens and the session's
-- working folder, per run. (No semicolons in comments: the migration runner splits at every one.)
CREATE TYPE "JobKind" AS ENUM ('BATCH', 'INTERACTIVE');
CREATE TYPE "SessionServer" AS ENUM ('SHELL', 'JUPYTER');

ALTER TABLE "job" ADD COLUMN "kind" "JobKind" NOT NULL DEFAULT 'BATCH',
  ADD COLUMN "sessionServer" "SessionServer";

ALTER TABLE "run_segment" ADD COLUMN "sessionHost" TEXT,
  ADD COLUMN "sessionPort" INTEGER,
  ADD COLUMN "sessionDir" TEXT;
