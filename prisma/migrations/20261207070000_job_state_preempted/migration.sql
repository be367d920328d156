-- A running job the scheduler preempted and did not requeue (not resumable, requeue policy NEVER)
-- ended FAILED, which people and scripts read as "its code crashed". It now ends PREEMPTED (Slurm's
-- end state of that name). Placed after FAILED, as in prisma/schema.prisma.
ALTER TYPE "JobState" ADD VALUE 'PREEMPTED' BEFORE 'CANCELLED';
