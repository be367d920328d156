import { renderMetrics } from "@tranche/domain/runtime";
import { db } from "../../server/db";
import { metricsRefusal, monitoringAccessFromEnv } from "../../server/monitoring-access";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

// Prometheus scrape endpoint: occupancy, pending/running per cluster, cycle durations, preemptions,
// delivery per budget (see packages/domain/src/runtime/metrics.ts). Per-budget series say who runs
// what, so outside the demo it takes TRANCHE_METRICS_TOKEN or an address in TRANCHE_METRICS_ALLOW.
export async function GET(req: Request) {
  const refused = metricsRefusal(req, monitoringAccessFromEnv());
  if (refused) return refused;
  try {
    const { contentType, text } = await renderMetrics(db());
    return new Response(text, { headers: { "content-type": contentType, "cache-control": "no-store" } });
  } catch (e) {
    return new Response(`# metrics unavailable: ${(e as Error).message.split("\n")[0]}\n`, {
      status: 503,
      headers: { "content-type": "text/plain" },
    });
  }
}
