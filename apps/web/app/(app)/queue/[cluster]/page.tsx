import { notFound } from "next/navigation";
import { DomainError, getQueue, type QueueView } from "@tranche/domain";
import { db } from "../../../../server/db";
import { LiveQueue } from "./live-queue";

export const metadata = { title: "Live queue" };
export const dynamic = "force-dynamic";

/**
 * The summary and the head of the order (100 rows) are rendered on the server, so the first paint
 * needs no client round trip, even with 10,000 pending jobs; the client polls the summary and fetches
 * further pages of 100 only as the list scrolls to them. The layout has already checked the session.
 */
export default async function QueuePage({ params }: { params: Promise<{ cluster: string }> }) {
  const { cluster } = await params;
  // Malformed percent-encoding (URIError) or a NUL (which Postgres refuses in text) names no cluster:
  // a 404 page, not a 500.
  let name: string;
  try {
    name = decodeURIComponent(cluster);
  } catch {
    notFound();
  }
  if (name.includes("\u0000")) notFound();
  let initial: QueueView | null;
  try {
    initial = JSON.parse(JSON.stringify(await getQueue(db(), name, { limit: 100 }))) as QueueView;
  } catch (e) {
    // An unknown cluster is a real 404 page; any other failure shows in the page and is retried.
    if (e instanceof DomainError && e.code === "NOT_FOUND") notFound();
    initial = null;
  }
  return <LiveQueue cluster={name} initial={initial} />;
}
