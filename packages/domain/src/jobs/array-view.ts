import type { PrismaClient } from "@tranche/db";
import type { JobState } from "@tranche/contracts";
import { managedBudgetIds, mayHold, mayReleaseHold, type Actor } from "../auth/actor";
import { notFound } from "../errors";
import { shownUserName } from "../user-name";
import { noArrayWords, mayCancelArray } from "./job-rules-input";

/**
 * One job array as its page shows it (the web's /arrays/{id}): how many tasks are in each state and what
 * the caller may do to them all, so a button can say how many tasks it will touch before it is pressed.
 * The permissions are the ones holdArray, releaseArray and cancelArray apply, asked of the same rules.
 */
export interface ArrayView {
  arrayId: number;
  /** The name its tasks were submitted under, and the spec ("0-99%10"). */
  name: string;
  spec: string;
  owner: { id: string; name: string };
  cluster: string;
  tasks: number;
  /** Tasks by state; a state no task is in is left out. */
  states: Partial<Record<JobState, number>>;
  /** May the caller hold and release its tasks (its owner, managers of its budget, operators, admins). */
  mayHold: boolean;
  /** Of its held tasks, how many the caller may release (an operator's hold only an operator or an admin). */
  releasable: number;
  /** May the caller cancel it whole (its owner, managers of its budget, admins). */
  mayCancel: boolean;
}

export async function getArrayView(prisma: PrismaClient, actor: Actor, arrayId: number): Promise<ArrayView> {
  const head = await prisma.job.findFirst({
    where: { arrayJobId: arrayId },
    orderBy: { id: "asc" },
    select: {
      userId: true,
      budgetId: true,
      name: true,
      arraySpec: true,
      user: { select: { name: true } },
      cluster: { select: { name: true } },
    },
  });
  if (!head) throw notFound(await noArrayWords(prisma, arrayId));
  const [byState, heldBy] = await Promise.all([
    prisma.job.groupBy({ by: ["state"], where: { arrayJobId: arrayId }, _count: { _all: true } }),
    prisma.job.groupBy({ by: ["heldBy"], where: { arrayJobId: arrayId, state: "HELD" }, _count: { _all: true } }),
  ]);
  const states = Object.fromEntries(byState.map((r) => [r.state, r._count._all])) as ArrayView["states"];
  const managed = await managedBudgetIds(prisma, actor);
  const may = mayHold(actor, head, managed);
  return {
    arrayId,
    name: head.name,
    spec: head.arraySpec ?? "",
    owner: { id: head.userId, name: shownUserName(head.user.name) },
    cluster: head.cluster.name,
    tasks: byState.reduce((n, r) => n + r._count._all, 0),
    states,
    mayHold: may,
    releasable: may
      ? heldBy
          .filter((r) => mayReleaseHold(actor, { userId: head.userId, heldBy: r.heldBy }))
          .reduce((n, r) => n + r._count._all, 0)
      : 0,
    mayCancel: mayCancelArray(actor, head, managed),
  };
}
