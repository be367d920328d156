-- A job may name the nodes it must run on (--nodelist) or must avoid (--exclude), by node name.
-- Empty lists: any node (every job before this change).
ALTER TABLE "job" ADD COLUMN "nodeList" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN "excludeNodes" TEXT[] DEFAULT ARRAY[]::TEXT[];
