-- An agent restarted under the same version left no line in its node's history. Its heartbeats now carry
-- an id made at each start of its process: the node keeps the last one, and another one is a restart.
ALTER TABLE "node" ADD COLUMN "agentStartId" TEXT;

-- The history line a node's agent's latest restarts are counted on, so that a crash-looping agent writes
-- one line per node per ten minutes and not one per restart.
CREATE TABLE "agent_restart_line" (
    "nodeId" TEXT NOT NULL,
    "eventId" BIGINT NOT NULL,
    "since" TIMESTAMPTZ(3) NOT NULL,
    "restarts" INTEGER NOT NULL,
    "wasVersion" TEXT,

    CONSTRAINT "agent_restart_line_pkey" PRIMARY KEY ("nodeId")
);

ALTER TABLE "agent_restart_line" ADD CONSTRAINT "agent_restart_line_nodeId_fkey" FOREIGN KEY ("nodeId") REFERENCES "node"("id") ON DELETE CASCADE ON UPDATE CASCADE;
