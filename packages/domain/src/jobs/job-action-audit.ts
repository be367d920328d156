import type { Tx } from "@tranche/db";
import type { Actor } from "../auth/actor";
import { writeAudit } from "../admin/audit";

export type JobAuditAction = "job.cancel" | "job.hold" | "job.release";

/**
 * An action on someone else's job (an operator's hold, a manager's or an admin's cancel) in the audit
 * log, in the action's own transaction: who, what, whose job and where it is charged. The owner learns
 * of it from the job's timeline; the audit log is where the lab asks who acts on others' jobs, and how
 * often. An owner's actions on their own jobs stay in the timeline alone.
 */
export async function auditOthersJob(
  tx: Tx,
  actor: Actor,
  job: { id: number; userId: string; budgetId: string },
  action: JobAuditAction,
): Promise<void> {
  if (actor.id === job.userId) return;
  const row = await tx.job.findUniqueOrThrow({
    where: { id: job.id },
    select: { name: true, user: { select: { email: true } }, budget: { select: { path: true } } },
  });
  await writeAudit(
    tx,
    actor,
    action,
    { type: "job", id: String(job.id), label: `job #${job.id} ${row.name}` },
    // budgetId: the managers who may read the row are those of the subtree holding it (audit-scope.ts).
    { owner: row.user.email, budget: row.budget.path, budgetId: job.budgetId },
  );
}

/**
 * The same for a whole array's waiting tasks changed in one statement (holdArray, releaseArray,
 * cancelArray): one row for the array, with how many tasks it changed. Its running tasks that a cancel
 * stops go through cancelJob, one row each.
 */
export async function auditOthersArray(
  tx: Tx,
  actor: Actor,
  arrayId: number,
  action: JobAuditAction,
  tasks: number,
): Promise<void> {
  if (tasks === 0) return;
  const head = await tx.job.findFirst({
    where: { arrayJobId: arrayId },
    orderBy: { id: "asc" },
    select: { userId: true, budgetId: true, name: true, user: { select: { email: true } }, budget: { select: { path: true } } },
  });
  if (!head || head.userId === actor.id) return;
  await writeAudit(
    tx,
    actor,
    action,
    { type: "job", id: String(arrayId), label: `array ${arrayId} ${head.name}: ${tasks} task${tasks === 1 ? "" : "s"}` },
    { owner: head.user.email, budget: head.budget.path, budgetId: head.budgetId },
  );
}
