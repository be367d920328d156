import type { JobView } from "@tranche/contracts";
import { formatDuration, formatExactDuration } from "@tranche/contracts/format";
import { LaneBadge, ReasonTag, StateBadge, ago, readable } from "../../../components/ui";
import { JobEnded } from "./job-ended";
import { JobNameCell } from "./job-name-cell";

/** One job of a jobs list (My jobs, All jobs, an array's page): its state, contract and where it stands. */
export function JobRow({
  job: j,
  showUser,
  now,
  select,
}: {
  job: JobView;
  showUser: boolean;
  now: number;
  /** A tick box to choose it for Hold/Release/Cancel selected (`can`: false for a job those cannot change). */
  select?: { can: boolean; on: boolean; set: (on: boolean) => void };
}) {
  return (
    <tr data-testid={`job-row-${j.id}`}>
      {select ? (
        <td>
          {select.can ? (
            <input
              type="checkbox"
              aria-label={`Select job #${j.id}`}
              checked={select.on}
              onChange={(e) => select.set(e.target.checked)}
            />
          ) : null}
        </td>
      ) : null}
      <JobNameCell job={j} showUser={showUser} />
      <td>
        <StateBadge state={j.state} />
      </td>
      <td className="small">
        <div>{j.budget}</div>
        <div className="muted">on {j.cluster}</div>
      </td>
      <td className="num">{j.gpus}</td>
      <td className="small">
        <LaneBadge lane={j.lane} />
        <div className="muted nowrap">
          {j.minRuntime > 0 ? `protected ${formatExactDuration(j.minRuntime)}` : "interruptible"}
          {j.resumable ? " · resumable" : ""}
        </div>
      </td>
      <td className="small" style={{ minWidth: 260, maxWidth: 560 }}>
        {j.state === "PENDING" || j.state === "HELD" ? (
          <span className="sentence-cell sentence-clamp" title={j.reason?.sentence}>
            {j.reason ? <ReasonTag code={j.reason.code} details={j.reason.details} /> : null}{" "}
            {j.reason ? readable(j.reason.sentence) : "Waiting for the scheduler's next cycle."}
          </span>
        ) : j.state === "RUNNING" || j.state === "STOPPING" ? (
          <span>
            Started {ago(j.startedAt, now)}
            {j.protectedUntil && Date.parse(j.protectedUntil) > now
              ? ` · protected ${formatDuration(Math.round((Date.parse(j.protectedUntil) - now) / 1000))} more`
              : j.minRuntime > 0
                ? " · interruptible"
                : ""}
          </span>
        ) : (
          <JobEnded job={j} now={now} />
        )}
      </td>
    </tr>
  );
}
