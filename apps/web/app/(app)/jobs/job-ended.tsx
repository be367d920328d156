import type { JobView } from "@tranche/contracts";
import { jobEndedText } from "@tranche/contracts/format";
import { ago } from "../../../components/ui";

/**
 * The Status cell of an ended job in the jobs list: how it ended and when, in `tranche ls`'s words
 * ("Exit code 7, ended 2 min ago"): the state badge alone does not say a failed job's exit code.
 */
export function JobEnded({ job, now }: { job: Pick<JobView, "state" | "exitCode" | "finishedAt">; now: number }) {
  const text = jobEndedText(job, job.finishedAt ? ago(job.finishedAt, now) : null) || "Ended";
  return (
    <span className="muted" data-testid="job-ended">
      {text.charAt(0).toUpperCase() + text.slice(1)}
    </span>
  );
}
