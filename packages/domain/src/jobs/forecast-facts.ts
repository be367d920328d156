import type { Db } from "../auth/actor";

/**
 * What a job's start forecast is shown with besides its stored row (startForecastView): the stored
 * forecast is refreshed about once a minute, but jobs end at any time, so that is read when the job is.
 */
export interface ForecastFacts {
  /** The stored forecast names a job that is no longer running or waiting: it was made before that job ended. */
  namesEnded: boolean;
}

export const NO_FORECAST_FACTS: ForecastFacts = { namesEnded: false };

interface Row {
  id: number;
  state: string;
  estimatedStartAfter: number[] | null;
}

/**
 * The facts for waiting jobs, by id (other jobs get none): one read of the named jobs by id, whatever
 * the number of rows.
 */
export async function forecastFacts(db: Db, rows: readonly Row[]): Promise<Map<number, ForecastFacts>> {
  const waiting = rows.filter((r) => r.state === "PENDING" || r.state === "HELD");
  const out = new Map<number, ForecastFacts>();
  if (waiting.length === 0) return out;
  const named = [...new Set(waiting.flatMap((r) => r.estimatedStartAfter ?? []))];
  const live =
    named.length === 0
      ? []
      : await db.$queryRaw<{ id: number }[]>`
          SELECT id FROM job WHERE id = ANY(${named}::int[]) AND state IN ('PENDING', 'HELD', 'RUNNING', 'STOPPING')`;
  const liveIds = new Set(live.map((r) => r.id));
  for (const r of waiting)
    out.set(r.id, {
      namesEnded: (r.estimatedStartAfter ?? []).some((id) => !liveIds.has(id)),
    });
  return out;
}

/** The facts for one job (none when it does not wait). */
export async function forecastFactsOf(db: Db, row: Row): Promise<ForecastFacts> {
  return (await forecastFacts(db, [row])).get(row.id) ?? NO_FORECAST_FACTS;
}
