-- A planned drain (R8, an operator drains a node at a time): when, why, and who planned it. The worker
-- clears all three when the drain starts, an operator when they cancel it.
ALTER TABLE "node" ADD COLUMN "drainAt" TIMESTAMPTZ(3),
ADD COLUMN "drainReason" TEXT,
ADD COLUMN "drainPlannedById" TEXT;

ALTER TABLE "node" ADD CONSTRAINT "node_drainPlannedById_fkey" FOREIGN KEY ("drainPlannedById") REFERENCES "user"("id") ON DELETE SET NULL ON UPDATE CASCADE;
