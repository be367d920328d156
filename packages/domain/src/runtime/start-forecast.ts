import type { PrismaClient } from "@tranche/db";
import {
  forecastStarts,
  type ClusterSnapshot,
  type ForecastOptions,
  type PolicyConfig,
  type StartForecast,
} from "@tranche/scheduler-core";
import { pendingJobsFree } from "./lock-order";

/**
 * The core's start forecast (forecastStarts, R10) for a cluster's pending jobs, stored on each job:
 * `estimatedStartAt` (null with `estimatedStartWhy` when unknown) and the jobs whose GPUs it takes.
 * The worker calls it after a cycle's commit, when due (apps/worker/src/forecast.ts). `revisions`:
 * the snapshot's (CycleInput.revisions), see writeStartForecasts.
 */
export async function refreshStartForecasts(
  prisma: PrismaClient,
  snapshot: ClusterSnapshot,
  policy: PolicyConfig,
  now: number,
  options: ForecastOptions = {},
  revisions: ReadonlyMap<string, number> = new Map(),
): Promise<StartForecast[]> {
  const { starts } = forecastStarts(snapshot, policy, now, options);
  await writeStartForecasts(prisma, starts, now, revisions);
  return starts;
}

/**
 * Stores a forecast made at `now`. `revisions`: job id -> the revision the forecast's snapshot read
 * (CycleInput.revisions); a job whose revision moved on since (changed, held or released: update-job.ts,
 * job-actions.ts, array-hold.ts) keeps no forecast made for what it was, as write-reasons.ts skips its
 * reason. A job missing from it is written unfenced (tools and tests that have no snapshot's revisions).
 */
export async function writeStartForecasts(
  prisma: PrismaClient,
  starts: readonly StartForecast[],
  now: number,
  revisions: ReadonlyMap<string, number> = new Map(),
): Promise<void> {
  if (starts.length === 0) return;
  const ids = starts.map((s) => Number(s.jobId));
  const revs = starts.map((s) => revisions.get(s.jobId) ?? null);
  const at = starts.map((s) => (s.at === null ? null : new Date(s.at * 1000).toISOString()));
  const why = starts.map((s) => s.why);
  const after = starts.map((s) => `{${s.after.map(Number).join(",")}}`);
  // An estimate is a note, as a reason is (write-reasons.ts): rows another transaction holds (a cycle
  // starting or writing reasons, a user's cancel) are skipped, not waited for, so this write never
  // takes part in a deadlock; a skipped job gets its estimate at the next refresh. A forecast never
  // replaces a newer one (another leader's, stored while this one was computed).
  await prisma.$executeRaw`
    WITH free AS (${pendingJobsFree(ids)})
    UPDATE job j SET "estimatedStartAt" = u.at::timestamptz, "estimatedStartWhy" = u.why, "estimatedStartAfter" = u.after::int[],
      "estimatedAt" = ${new Date(now * 1000)}
    FROM unnest(${ids}::int[], ${at}::text[], ${why}::text[], ${after}::text[], ${revs}::int[]) AS u(id, at, why, after, r)
    WHERE j.id = u.id AND j.id IN (SELECT id FROM free) AND (j."estimatedAt" IS NULL OR j."estimatedAt" <= ${new Date(now * 1000)})
      AND j.revision = COALESCE(u.r, j.revision)`;
}

/**
 * Drops the forecasts of a cluster's waiting jobs made before `before` (epoch seconds): the ones the
 * last refresh did not renew (it failed, is still being computed, or skipped the row), so no forecast
 * older than that is shown as current; such a job reads "no start forecast yet" until the next one.
 * Skips rows others hold, as the write does (pendingJobsFree's rule).
 */
export async function clearStartForecasts(prisma: PrismaClient, clusterId: string, before: number): Promise<number> {
  return prisma.$executeRaw`
    WITH free AS (
      SELECT id FROM job WHERE "clusterId" = ${clusterId} AND state IN ('PENDING', 'HELD') AND "estimatedAt" < ${new Date(before * 1000)}
      ORDER BY id FOR UPDATE SKIP LOCKED)
    UPDATE job j SET "estimatedStartAt" = NULL, "estimatedStartWhy" = NULL, "estimatedStartAfter" = '{}', "estimatedAt" = NULL
    FROM free WHERE j.id = free.id`;
}
