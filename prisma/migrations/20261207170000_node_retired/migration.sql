-- A host taken out of service for good (re-enrolled under a new name, decommissioned) stayed DOWN for
-- ever in every list, and deleting its row would erase its job history (placements cascade). RETIRED
-- keeps the row and its history: the scheduler, capacity and the default node lists leave it out.
ALTER TYPE "NodeState" ADD VALUE 'RETIRED';
