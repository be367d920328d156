import Link from "next/link";
import type { JobView } from "@tranche/contracts";
import { arrayTaskText } from "@tranche/contracts/format";

/**
 * The Job cell of the jobs list: the job's id and name, linking to its page; for a task of a job array,
 * which task of which array (the words of the job page and `tranche ls`), linking to the array's page; its owner when the list shows
 * everyone's jobs.
 */
export function JobNameCell({
  job,
  showUser,
}: {
  job: Pick<JobView, "id" | "name" | "array"> & { user: Pick<JobView["user"], "name"> };
  showUser: boolean;
}) {
  return (
    <td className="nowrap">
      <Link href={`/jobs/${job.id}`}>
        <span className="mono">#{job.id}</span> {job.name}
      </Link>
      {job.array ? (
        <div className="small muted" data-testid="array-task">
          {arrayTaskText(job.array)} (<Link href={`/arrays/${job.array.id}`}>array #{job.array.id}</Link>)
        </div>
      ) : null}
      {showUser ? <div className="small muted">{job.user.name}</div> : null}
    </td>
  );
}
