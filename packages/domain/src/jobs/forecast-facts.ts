import type { Db } from "../auth/actor";
import { laneOf } from "./job-view";

/**
 * What a job's start forecast is shown with besides its stored row (startForecastView): the stored
 * forecast is refreshed about once a minute, but jobs end at any time and the cycle reserves GPUs
 * every few seconds, so both are read when the job is.
 */
export interface ForecastFacts {
  /** The stored forecast names a job that is no longer running or waiting: it was made before that job ended. */
  namesEnded: boolean;
  /**
   * The latest cycle's reservation held by this job: when it starts and when that cycle ran. Not for a
   * debug-lane job: its reservation counts on every run on its node leaving at the end of its
   * protection, R5's victim limit aside (scheduling-model.md R5, R7), so its start may come later.
   */
  reservation: { from: Date; at: Date } | null;
}

export const NO_FORECAST_FACTS: ForecastFacts = { namesEnded: false, reservation: null };

interface Row {
  id: number;
  clusterId: string;
  state: string;
  estimatedStartAfter: number[] | null;
  gpus: number;
  minRuntimeSec: number;
  maxRuntimeSec: number | null;
}

/**
 * The facts for waiting jobs, by id (other jobs get none): at most two indexed reads, whatever the
 * number of rows (the named jobs by id; each cluster's latest cycle).
 */
export async function forecastFacts(db: Db, rows: readonly Row[]): Promise<Map<number, ForecastFacts>> {
  const waiting = rows.filter((r) => r.state === "PENDING" || r.state === "HELD");
  const out = new Map<number, ForecastFacts>();
  if (waiting.length === 0) return out;
  const named = [...new Set(waiting.flatMap((r) => r.estimatedStartAfter ?? []))];
  const mayHold = (r: Row): boolean => r.state === "PENDING" && laneOf(r) !== "DEBUG";
  const pendingClusters = [...new Set(waiting.filter(mayHold).map((r) => r.clusterId))];
  const [live, cycles] = await Promise.all([
    named.length === 0
      ? []
      : db.$queryRaw<{ id: number }[]>`
          SELECT id FROM job WHERE id = ANY(${named}::int[]) AND state IN ('PENDING', 'HELD', 'RUNNING', 'STOPPING')`,
    pendingClusters.length === 0
      ? []
      : db.$queryRaw<{ clusterId: string; at: Date; reservations: unknown }[]>`
          SELECT c.id AS "clusterId", s.at, s.reservations FROM unnest(${pendingClusters}::text[]) AS c(id)
          CROSS JOIN LATERAL (SELECT at, reservations FROM scheduling_cycle WHERE "clusterId" = c.id ORDER BY at DESC LIMIT 1) s`,
  ]);
  const liveIds = new Set(live.map((r) => r.id));
  // The cycle's reservations as the core made them: { jobId, from (epoch seconds), ... } (apply-plan.ts).
  const reserved = new Map<string, { from: Date; at: Date }>();
  for (const c of cycles)
    for (const r of Array.isArray(c.reservations) ? (c.reservations as { jobId?: unknown; from?: unknown }[]) : [])
      if (typeof r.from === "number" && Number.isFinite(r.from))
        reserved.set(`${c.clusterId}/${String(r.jobId)}`, { from: new Date(r.from * 1000), at: c.at });
  for (const r of waiting)
    out.set(r.id, {
      namesEnded: (r.estimatedStartAfter ?? []).some((id) => !liveIds.has(id)),
      reservation: mayHold(r) ? (reserved.get(`${r.clusterId}/${r.id}`) ?? null) : null,
    });
  return out;
}

/** The facts for one job (none when it does not wait). */
export async function forecastFactsOf(db: Db, row: Row): Promise<ForecastFacts> {
  return (await forecastFacts(db, [row])).get(row.id) ?? NO_FORECAST_FACTS;
}
