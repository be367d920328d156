import type { Tx } from "@tranche/db";
import type { CycleResult, PendingReason } from "@tranche/scheduler-core";
import type { CycleInput } from "./load-snapshot";
import { pendingJobsFree } from "./lock-order";

/**
 * R10: which of a cycle's pending reasons to store. Rewriting a wide job row costs ~75 us, and the
 * first cycle after a restart with 10,000 pending jobs had 10,000 to write (0.5-0.7 s, half the
 * cycle). So each cycle writes the head of the queue (position <= 100), the first reasons of up to
 * `newCap` jobs that have none yet (in the order the cycle took them; the others get theirs in the
 * next cycles), then up to `cap` others: those whose code changed first, then the stalest. Every
 * stored reason is at most a few cycles old; reasonCycleId tells which cycle wrote it.
 */
export function chooseReasons(
  input: Pick<CycleInput, "storedReasons" | "lastCycleId">,
  pending: CycleResult["pending"],
  cap: number,
  newCap: number,
): [string, PendingReason][] {
  const must: [string, PendingReason][] = [];
  const rest: { id: string; reason: PendingReason; codeChanged: boolean; cycleId: bigint }[] = [];
  let newLeft = newCap;
  for (const [jobId, reason] of pending) {
    const stored = input.storedReasons.get(jobId);
    const position = reason.details.position;
    if (!stored || stored.cycleId === null || stored.code === null) {
      if (newLeft > 0 || (position !== null && position <= 100)) must.push([jobId, reason]);
      newLeft--;
    } else if (stored.code === reason.code && stored.position === position && stored.cycleId === input.lastCycleId) continue;
    else if (position !== null && position <= 100) must.push([jobId, reason]);
    else rest.push({ id: jobId, reason, codeChanged: stored.code !== reason.code, cycleId: stored.cycleId });
  }
  rest.sort((a, b) =>
    a.codeChanged !== b.codeChanged ? (a.codeChanged ? -1 : 1) : a.cycleId < b.cycleId ? -1 : a.cycleId > b.cycleId ? 1 : 0,
  );
  const room = Math.max(0, cap - must.length);
  return [...must, ...rest.slice(0, room).map((r) => [r.id, r.reason] as [string, PendingReason])];
}

/**
 * Stores the chosen reasons in the cycle's transaction and returns how many rows it wrote. A reason is
 * a note on the job, not a change of its state, so rows another transaction holds right now (a user
 * cancelling or holding the job, a bulk cancel, the start forecast) are skipped rather than waited
 * for: the write never waits, so it can never close a deadlock with a transaction that holds some of
 * these rows and waits for a job the cycle has locked (lock-order.ts). A skipped row keeps its older
 * reason, is among the stalest next cycle, and is rewritten then. A job whose contract changed since
 * the snapshot (its revision moved on, update-job.ts) is skipped too: the reason was decided for its
 * old values, and the next cycle decides one for the new.
 */
export async function writeReasons(
  tx: Tx,
  chosen: readonly [string, PendingReason][],
  cycleId: bigint,
  revisions: ReadonlyMap<string, number>,
): Promise<number> {
  if (chosen.length === 0) return 0;
  const ids: number[] = [];
  const codes: string[] = [];
  const sentences: string[] = [];
  const details: string[] = [];
  const positions: (number | null)[] = [];
  const revs: (number | null)[] = [];
  for (const [jobId, reason] of chosen) {
    ids.push(Number(jobId));
    revs.push(revisions.get(jobId) ?? null);
    codes.push(reason.code);
    sentences.push(reason.sentence);
    details.push(JSON.stringify(reason.details));
    positions.push(reason.details.position);
  }
  return tx.$executeRaw`
    WITH free AS (${pendingJobsFree(ids)})
    UPDATE job j SET "reasonCode" = u.c, "reasonSentence" = u.s, "reasonDetails" = u.d::jsonb, "queuePosition" = u.p, "reasonCycleId" = ${cycleId}
    FROM unnest(${ids}::int[], ${codes}::text[], ${sentences}::text[], ${details}::text[], ${positions}::int[], ${revs}::int[]) AS u(id, c, s, d, p, r)
    WHERE j.id = u.id AND j.id IN (SELECT id FROM free) AND j.revision = COALESCE(u.r, j.revision)`;
}
