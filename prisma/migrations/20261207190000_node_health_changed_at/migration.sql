-- When a node's health last turned, so a node drained automatically that reports healthy again can say
-- since when (it stays DRAINING until its jobs have left, R8). Null for nodes not heard turning since.
ALTER TABLE "node" ADD COLUMN "healthChangedAt" TIMESTAMPTZ(3);
