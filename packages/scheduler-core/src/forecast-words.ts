import type { ForecastUnknown } from "./forecast-starts";

/**
 * Why a start forecast is unknown, in the sentences the job page and `tranche explain` show, and in the
 * few words of a table's column (`tranche queue`, `tranche ls`, the live queue), which say what the
 * unknown means ("never, as it stands", "not while held") rather than a bare "unknown". A light module,
 * without the replay, so browser pages may import it through ./format.
 */
export const FORECAST_WHY: Readonly<Record<Exclude<ForecastUnknown, "HORIZON">, string>> = {
  HELD: "it is held",
  INVALID_CONTRACT: "it can never fit this cluster",
  NODE_LIST: "its node lists leave it no node in service to run on",
  DEPENDENCY: "it waits for a job whose end is not known (or that can no longer satisfy it)",
  OVER_USER_LIMIT: "it needs more GPUs than its budget's per-user limit allows, so it cannot start until that limit is raised",
  NODES_OUT: "the cluster's ready nodes cannot hold it while the others are draining, cordoned, in repair or down",
  NO_KNOWN_END: "the running jobs it waits for have no known end (no max runtime)",
  BEYOND: "it is too far back in the queue to forecast",
};

/** The HORIZON sentence's start; its end names how far the forecast looked. */
export const HORIZON_WHY_START = "it does not start within the next";

const SHORT: Readonly<Record<ForecastUnknown, string>> = {
  HELD: "not while held",
  INVALID_CONTRACT: "never, as it stands",
  NODE_LIST: "never, as it stands",
  DEPENDENCY: "waits on another job",
  OVER_USER_LIMIT: "never, as it stands",
  NODES_OUT: "not while nodes are out",
  NO_KNOWN_END: "no end times to go by",
  HORIZON: "not within the forecast",
  BEYOND: "too far back to tell",
};

/** A table cell's words for a forecast that is unknown for `why`; "not known yet" for a why of elsewhere. */
export function shortForecastWhy(why: string): string {
  if (why.startsWith(HORIZON_WHY_START)) return SHORT.HORIZON;
  for (const [k, sentence] of Object.entries(FORECAST_WHY)) if (sentence === why) return SHORT[k as ForecastUnknown];
  return "not known yet";
}
