import { notFound } from "next/navigation";
import { db } from "../../../../server/db";
import { JobsTable } from "../../jobs/jobs-table";

export const metadata = { title: "Job array" };

/** One job array: its tasks and what can be done to them all. An id that names no array is a 404 page. */
export default async function ArrayPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const n = /^\d{1,9}$/.test(id) ? Number(id) : NaN;
  if (!Number.isSafeInteger(n) || n > 2_147_483_647) notFound();
  if (!(await db().job.findFirst({ where: { arrayJobId: n }, select: { id: true } }))) notFound();
  return <JobsTable array={n} />;
}
