-- The debug lane's settings per cluster (R5): null keeps the scheduler's default for each.
-- (No semicolons in comments: the migration runner splits at every one.)
ALTER TABLE "cluster" ADD COLUMN "debugReserve" DOUBLE PRECISION,
  ADD COLUMN "debugMaxGpusPerUser" INTEGER,
  ADD COLUMN "debugVictimMaxCostSec" INTEGER;
