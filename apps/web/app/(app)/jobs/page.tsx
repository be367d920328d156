import { JobsTable } from "./jobs-table";

export const metadata = { title: "My jobs" };

export default function JobsPage() {
  return <JobsTable />;
}
