import Link from "next/link";
import type { ArrayRowView } from "@tranche/contracts";
import { arrayRowText } from "@tranche/contracts/format";
import { ago } from "../../../components/ui";
import { plural } from "../../../lib/words";

/**
 * A job array as one row of My jobs and All jobs: its name, where its tasks stand ("array of 100: 48
 * pending, 20 running, 27 completed, 5 failed") and when one last moved, linking to its page, which lists
 * the tasks. A row per task let one 100-task array push every other job out of the list.
 */
export function ArrayRow({
  array: a,
  showUser,
  now,
  selecting = false,
}: {
  array: ArrayRowView;
  showUser: boolean;
  now: number;
  /** The list has tick boxes: an array has none (its page acts on all its tasks), only its cell. */
  selecting?: boolean;
}) {
  return (
    <tr data-testid={`array-row-${a.id}`}>
      {selecting ? <td /> : null}
      <td className="nowrap">
        <Link href={`/arrays/${a.id}`}>
          array <span className="mono">#{a.id}</span> {a.name}
        </Link>
        <div className="small muted">tasks {a.spec}</div>
        {showUser ? <div className="small muted">{a.user.name}</div> : null}
      </td>
      <td colSpan={5} className="small">
        <div data-testid="array-row-states">{arrayRowText(a)}</div>
        <div className="muted">
          {a.budget} on {a.cluster} · {plural(a.gpus, "GPU")} a task · last activity {ago(a.lastActivityAt, now)} ·{" "}
          <Link href={`/arrays/${a.id}`}>see its {a.tasks === 1 ? "task" : plural(a.tasks, "task")}</Link>
        </div>
      </td>
    </tr>
  );
}
