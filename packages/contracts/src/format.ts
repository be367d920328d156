import { formatDuration, formatExactDuration, shareUsed, shortForecastWhy } from "@tranche/scheduler-core/format";

// Formatting and parsing helpers without zod: browser pages import them from "@tranche/contracts/format"
// so a page that only shows durations does not ship the schema library.

// Durations: the core's one parser, for every entry point (form, tRPC, REST, CLI, scenario files).
export { parseDuration, durationProblem } from "@tranche/scheduler-core/duration";

// Durations in words: the core's one formatter (the words of its reason sentences), for every page and
// the CLI; formatExactDuration for a contract's own values, which are never rounded.
export { formatDuration, formatExactDuration } from "@tranche/scheduler-core/format";

// A budget's ratio in words, as the reason sentences say it (the CLI's what-if).
export { shareUsed } from "@tranche/scheduler-core/format";

/**
 * A ratio column's cell, on the Budgets page and in the CLI's what-if: "27% of its share", "1.4 times its
 * share", and "no share here" where the budget has no share on the cluster (no entitlement). A bare "0.27"
 * said nothing to a reader who had not read the scheduling model.
 */
export function shareUsedCell(ratio: number | null): string {
  return ratio === null ? "no share here" : shareUsed(ratio);
}

// How an ended job ended ("exit code 7, ended 2 min ago"), for `tranche ls` and the web's job lists.
export { jobEndWords, jobEndedText } from "./job-end-words";

// A job array's tasks by state, and its one row in a job list, for its page, the web's lists and `tranche ls`.
export { arrayRowText, arrayStateParts, jobListRows } from "./array-words";
export { nodeListWords } from "./node-list-words";
export { jobActionDoneText, jobActionDoneWord, jobActionQuestion, jobActionRefusedText } from "./job-action-words";

/**
 * GPU-seconds as GPU-hours, the number the Budgets page and `tranche budgets` print: one decimal under 100
 * (3.5, 0.4), whole hours with thousands separators from 100 on (30,000). No unit: each adds its own.
 */
export function gpuHoursNumber(gpuSeconds: number): string {
  const h = gpuSeconds / 3600;
  return h >= 100 ? Math.round(h).toLocaleString("en-US") : h.toFixed(1);
}

/**
 * The form's words for a maximum runtime under the minimum, which the server refuses ("Maximum runtime
 * 10 min is shorter than the minimum runtime, 1 h"): "The maximum runtime (10 min) is shorter than the minimum (1 h)".
 * Null when there is no maximum or it is at least the minimum.
 */
export function runtimeOrderProblem(minRuntime: number, maxRuntime: number | null): string | null {
  if (maxRuntime === null || maxRuntime >= minRuntime) return null;
  return `The maximum runtime (${formatExactDuration(maxRuntime)}) is shorter than the minimum (${formatExactDuration(minRuntime)})`;
}

/**
 * A job's state as people read it ("Pending", "Completed"): the web's badge and `tranche explain` say it
 * this way; the code ("PENDING") stays for --json and the API.
 */
export function stateWords(state: string): string {
  return state.charAt(0) + state.slice(1).toLowerCase();
}

/** A task of a job array, as the job list, the job page and the CLI say it: "task 7 of 0-99%10". */
export function arrayTaskText(a: { index: number; spec: string }): string {
  return `task ${a.index} of ${a.spec}`;
}

/**
 * Time left in a countdown, in words that never say less than is left: seconds rounded up and, under
 * ten minutes, read exactly ("1 min 59 s", not "1 min"); further off in whole units ("12 min"). The job
 * pages (until()) and the CLI (protection left, the grace before SIGKILL) both say it this way.
 */
export function countdownWords(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  return s < 600 ? formatExactDuration(s) : formatDuration(s);
}

/**
 * A job's last checkpoint, as it reported it (by touching $TRANCHE_CHECKPOINT_DIR/.tranche-checkpoint),
 * for the job page and `tranche explain` while it runs or waits to resume: "25 s ago"; for a running
 * resumable job that reported none, how to report one; null otherwise. A researcher sees that the checkpoints are seen, and how much work
 * a preemption would take back.
 */
export function lastCheckpointWords(
  job: { lastCheckpointAt: string | null; resumable: boolean; state: string },
  now: number,
): string | null {
  // An ended job resumes from nothing: its checkpoint's age would only be noise on its page.
  if (!["PENDING", "HELD", "RUNNING", "STOPPING"].includes(job.state)) return null;
  if (job.lastCheckpointAt)
    return `${formatDuration(Math.max(0, Math.round((now - Date.parse(job.lastCheckpointAt)) / 1000)))} ago`;
  if (job.resumable && (job.state === "RUNNING" || job.state === "STOPPING"))
    return "none reported yet (touch $TRANCHE_CHECKPOINT_DIR/.tranche-checkpoint after each one)";
  return null;
}

/** About how long until a forecast start: minutes under 2h, then hours and minutes rounded to 10 min. */
export function aboutDuration(seconds: number): string {
  if (seconds < 60) return "under a minute";
  if (seconds < 7200) return formatDuration(Math.round(seconds / 60) * 60);
  return formatDuration(Math.round(seconds / 600) * 600);
}

/**
 * The core's start forecast in plain words, for the job page, the queue and the CLI: "expected to start
 * within about 40 min (sooner if running jobs end early), after #81 and #94". It is an upper bound on the
 * wait if nothing new arrives, and says so; an unknown one says why; a job with no forecast yet says so
 * (never a lower bound shown as the expected time).
 * A known start with a why comes from elsewhere than the forecast, and says where ("..., when the GPUs
 * reserved for it free up").
 */
export function expectedStartWords(
  f: { estimatedStartAt: string | null; estimatedStartWhy: string | null; estimatedStartAfter?: readonly number[] },
  nowMs: number,
  opts: { short?: boolean } = {},
): string {
  if (f.estimatedStartAt === null) {
    // A table's cell says what the unknown means, as the sentence does: not yet made, or why not.
    if (f.estimatedStartWhy === null) return opts.short ? "no estimate yet" : "no start forecast yet";
    return opts.short ? shortForecastWhy(f.estimatedStartWhy) : `start time unknown: ${f.estimatedStartWhy}`;
  }
  const s = Math.round((Date.parse(f.estimatedStartAt) - nowMs) / 1000);
  // An upper bound on the wait, not a likely time: it counts each running job as using all its time
  // (measured live, every forecast job started sooner), so the words say which way it errs.
  const when = s <= 30 ? "now" : `within about ${aboutDuration(s)} (sooner if running jobs end early)`;
  if (opts.short) return s <= 30 ? "now" : `~${aboutDuration(s)}`;
  const after = f.estimatedStartAfter ?? [];
  const list = after.slice(0, 3).map((id) => `#${id}`);
  const more = after.length > 3 ? ` and ${after.length - 3} more` : "";
  const tail = f.estimatedStartWhy
    ? `, ${f.estimatedStartWhy}`
    : list.length === 0
      ? ""
      : `, after ${list.length === 1 ? list[0] : `${list.slice(0, -1).join(", ")}${more ? ", " + list.at(-1) : " and " + list.at(-1)}`}${more}`;
  return `expected to start ${when}${tail}`;
}

/** A node's state as a person says it ("in repair", not REPAIR), for the nodes page and the CLI. */
const NODE_STATE_NAMES: Record<string, string> = {
  READY: "ready",
  CORDONED: "cordoned",
  DRAINING: "draining",
  REPAIR: "in repair",
  DOWN: "down",
  RETIRED: "retired",
};

export function nodeStateText(state: string): string {
  return NODE_STATE_NAMES[state] ?? state.toLowerCase();
}

/** A change in a node's history: the operator's own words, or that they gave none (who did it is shown beside it). */
export function nodeChangeReasonText(reason: string | null): string {
  return reason ?? "no reason given";
}

/**
 * Why a node is in its state, for the nodes page and `tranche nodes` / `tranche node show`: its reason as
 * stored, except for a node drained for its own unhealthy report that has been healthy since. That one
 * stays draining until its jobs have left (R8), and "reported itself unhealthy and is draining" alone
 * read as if it were still unhealthy: it says when it was unhealthy, since when it is healthy, and when
 * it comes back.
 */
export function nodeReasonWords(
  n: { state: string; stateReason: string | null; stateChangedAt: string; healthyAgainAt: string | null },
  now: number,
): string | null {
  if (n.state !== "DRAINING" || !n.healthyAgainAt) return n.stateReason;
  const since = (iso: string) => formatDuration(Math.max(0, Math.round((now - Date.parse(iso)) / 1000)));
  return `Reported itself unhealthy ${since(n.stateChangedAt)} ago; healthy again for the last ${since(n.healthyAgainAt)}; returns to service once its jobs have left.`;
}

/** An enrollment token's status as a person says it, on the clusters page and in `tranche admin enrollment-tokens`. */
export function enrollmentTokenStatusText(status: string): string {
  return status === "USED"
    ? "used"
    : status === "EXPIRED"
      ? "expired"
      : status === "UNUSED"
        ? "not used yet"
        : status.toLowerCase();
}

/** What a node's state means for its work (R8), after its name: "draining: no new work, ...". */
const NODE_STATE_MEANINGS: Record<string, string> = {
  READY: "new work may start there",
  CORDONED: "no new work, its jobs keep running",
  DRAINING: "no new work, its jobs leave as their contracts allow",
  REPAIR: "empty, waiting for a repair",
  DOWN: "not heard from",
  RETIRED: "out of service for good, kept for its history",
};

export function nodeStateMeaning(state: string): string {
  const meaning = NODE_STATE_MEANINGS[state];
  return meaning ? `${nodeStateText(state)}: ${meaning}` : nodeStateText(state);
}
