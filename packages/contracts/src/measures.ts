import { z } from "zod";
import { strictObject } from "./input";

/** The longest window the measures are computed over, hours (the charts page's 7 days). */
export const MEASURES_MAX_HOURS = 168;

/**
 * GET /api/v1/measures/{cluster}?hours=N: the window of the charts page's measures, in whole hours (1 to
 * 168; absent: 24). The digits are checked as written, as the queue's limit is.
 */
export const measuresQuery = strictObject(
  {
    hours: z.preprocess(
      (v) => (v === null || v === "" ? undefined : v),
      z
        .string()
        .trim()
        .regex(/^\d{1,4}$/, {
          error: (i) =>
            `hours must be a whole number of hours (1 to ${MEASURES_MAX_HOURS}), got '${String(i.input).slice(0, 40)}'`,
        })
        .transform(Number)
        .pipe(
          z
            .number()
            .min(1, { error: (i) => `hours must be at least 1, got ${String(i.input)}` })
            .max(MEASURES_MAX_HOURS, { error: (i) => `hours must be at most ${MEASURES_MAX_HOURS}, got ${String(i.input)}` }),
        )
        .default(24),
    ),
  },
  "the measures' query",
);

/** One budget's delivery over the window (docs/scheduling-model.md §4), as the measures answer it. */
export interface DeliveryRow {
  budget: string;
  delivery: number | null;
  owedGpuHours: number;
  deliveredGpuHours: number;
}

/** One budget's usage and earned entitlement over the scheduler's 7-day window. */
export interface UsageRow {
  budget: string;
  usageGpuHours: number;
  entitlementGpuHours: number;
  ratio: number | null;
}

/** The part of GET /api/v1/measures/{cluster} a delivery report reads. */
export interface DeliveryReport {
  cluster: string;
  from: string;
  to: string;
  hours: number;
  since: string | null;
  delivery: DeliveryRow[];
  deliveryWindow: { delivery: number | null; budgetsOwed: number; budgetsAtLeast95: number; minDelivery: number | null };
  usage: UsageRow[];
}
