import { renderMetrics } from "@tranche/domain/runtime";
import { db } from "../../server/db";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

// Prometheus scrape endpoint: occupancy, pending/running per cluster, cycle durations, preemptions,
// delivery per budget (see packages/domain/src/runtime/metrics.ts).
export async function GET() {
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
