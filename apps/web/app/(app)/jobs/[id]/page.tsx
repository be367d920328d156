import { notFound } from "next/navigation";
import { Suspense } from "react";
import { db } from "../../../../server/db";
import { JobDetailView } from "./job-detail";

export const metadata = { title: "Job" };

/** A job that does not exist is a real 404 page, not a view that loads forever. */
export default async function JobPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const n = /^\d{1,9}$/.test(id) ? Number(id) : NaN;
  if (!Number.isSafeInteger(n) || n > 2_147_483_647) notFound();
  if (!(await db().job.findUnique({ where: { id: n }, select: { id: true } }))) notFound();
  return (
    <Suspense>
      <JobDetailView id={n} />
    </Suspense>
  );
}
