import { Suspense } from "react";
import { JobDetailView } from "./job-detail";

export const metadata = { title: "Job" };

export default async function JobPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <Suspense>
      <JobDetailView id={Number(id)} />
    </Suspense>
  );
}
