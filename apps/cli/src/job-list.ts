// `tranche ls`: one row per job, as squeue and sacct show them: its name beside its id, and for an ended
// job how it ended (exit code, maximum runtime), which the state alone does not say.
import type { ArrayRowView, JobView } from "@tranche/contracts";
import { arrayRowText, arrayTaskText, expectedStartWords, jobEndedText } from "@tranche/contracts/format";
import { ago } from "./format";

export const JOB_LIST_HEAD = ["ID", "NAME", "STATE", "CLUSTER", "BUDGET", "GPUS", "AGE", "STARTS", "WHY"];

/** Names are up to 200 characters: the list keeps its columns readable and says a name was cut. */
const NAME_CHARS = 24;

const cut = (s: string) => (s.length > NAME_CHARS ? `${s.slice(0, NAME_CHARS - 1)}…` : s);

/** The WHY column: a waiting job's reason, a running job's time, an ended job's outcome and when. */
function why(j: JobView, now: number): string {
  if (j.state === "PENDING" || j.state === "HELD") return j.reason ? j.reason.sentence : "waiting for the next cycle";
  if (j.state === "RUNNING") return `running ${ago(j.startedAt, now)}`;
  if (j.state === "STOPPING") return "";
  return jobEndedText(j, j.finishedAt ? `${ago(j.finishedAt, now)} ago` : null);
}

/** STARTS: a waiting job's start forecast in `tranche queue`'s words ("~40 min", "no estimate yet"). */
const starts = (j: JobView, now: number): string =>
  j.state === "PENDING" || j.state === "HELD" ? expectedStartWords(j, now, { short: true }) : "";

export function jobListRow(j: JobView, now = Date.now()): (string | number)[] {
  return [
    j.array ? `${j.id} (${arrayTaskText(j.array)})` : j.id,
    cut(j.name),
    j.state,
    j.cluster,
    j.budget,
    j.gpus,
    ago(j.submittedAt, now),
    starts(j, now),
    why(j, now),
  ];
}

/**
 * A job array as one row (as squeue folds an array's pending tasks into one line): a 100-task array took
 * 100 rows of `tranche ls` and pushed the other jobs off its limit. WHY says where its tasks stand and how
 * to list them; AGE is since one of them last started, ended or was submitted.
 */
export function arrayListRow(a: ArrayRowView, now = Date.now()): (string | number)[] {
  return [
    `${a.id} (array ${a.spec})`,
    cut(a.name),
    "ARRAY",
    a.cluster,
    a.budget,
    a.gpus,
    ago(a.lastActivityAt, now),
    "",
    `${arrayRowText(a)} (tranche ls --array ${a.id})`,
  ];
}
