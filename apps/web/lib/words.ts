import { countdownWords, shareUsedCell } from "@tranche/contracts/format";
import { reasonLabel } from "@tranche/contracts/reasons";
/** "1 GPU", "2 GPUs", "1,024 starts": a count and its noun, in the number's grammatical number. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}

/**
 * The live queue's running tab, counting as its Running tile does: jobs launched, and apart from them
 * starts still waiting for preempted jobs to exit (listed on the tab, not yet running).
 */
export function runningTabLabel(launched: number, starting: number): string {
  return starting > 0 ? `Running (${launched} + ${starting} starting)` : `Running (${launched})`;
}

const RUN_ENDS: Record<string, string> = {
  FINISH: "finished",
  FAIL: "failed",
  PREEMPT: "preempted",
  KILL: "stopped at its maximum runtime",
  LOST: "lost with its node",
  CANCEL: "cancelled",
};

/** How a run ended, in words (the stored code stays in JSON). */
export function runEndText(code: string | null | undefined): string {
  return code ? (RUN_ENDS[code] ?? code.toLowerCase()) : "";
}

/** A placement on one node: "all 8 GPUs" for a whole node, else "GPUs 0, 3" (the indexes a job sees). */
export function placementText(gpuIndexes: readonly number[], nodeSize: number | null): string {
  if (nodeSize !== null && gpuIndexes.length === nodeSize && nodeSize > 1) return `all ${nodeSize} GPUs`;
  return `${gpuIndexes.length === 1 ? "GPU" : "GPUs"} ${gpuIndexes.join(", ")}`;
}

/**
 * GPUs held by starts that wait for their preempted jobs to exit. Mostly the GPUs those leaving jobs
 * still use (counted in use), so never added to the in-use count with a "+": 83 + 8 of 88 read as 91.
 */
export function promisedText(gpus: number): string {
  return `${plural(gpus, "GPU")} promised to starts waiting for preempted jobs to exit`;
}

/** A job's minimum runtime as its page lists it: 0 is no protection at all (unallocated work), not "0 s". */
export function minRuntimeText(seconds: number, format: (s: number) => string): string {
  return seconds === 0 ? "none (unallocated)" : format(seconds);
}

/**
 * The time beside a pending reason: only when the job holding a reservation can start there
 * ("reserved from 19:32 (in 29 min)"). A reason's earliest start is a lower bound, never shown as a
 * time: the start forecast is the expected time, and a lower bound beside it read as one.
 */
export function reasonTimesText(code: string | null, details: unknown, clockAndRelative: (iso: string) => string): string | null {
  const d = (details ?? {}) as { reservedFrom?: unknown };
  if (code === "RESERVED_FOR" && typeof d.reservedFrom === "string") return `reserved from ${clockAndRelative(d.reservedFrom)}`;
  return null;
}

/**
 * Whether a timeline entry shows its reason's label beside its title: not when the title already says
 * it ("Finished" beside "finished", "Killed at its maximum runtime" beside "killed").
 */
export function labelAddsToTitle(title: string, label: string): boolean {
  return !title.trim().toLowerCase().includes(label.trim().toLowerCase());
}

/**
 * A job's grace period (SIGTERM to SIGKILL) as its page lists it: the default is said with its value
 * ("2 min (the default)"), which depends on the lane: unallocated work gets the shorter one.
 */
export function gracePeriodText(
  job: { gracePeriod: number | null; lane: "DEBUG" | "ALLOCATED" | "UNALLOCATED" },
  defaults: { gracePeriod: number; unallocatedGracePeriod: number },
  format: (s: number) => string,
): string {
  if (job.gracePeriod !== null) return format(job.gracePeriod);
  return job.lane === "UNALLOCATED"
    ? `${format(defaults.unallocatedGracePeriod)} (the default for unallocated work)`
    : `${format(defaults.gracePeriod)} (the default)`;
}

/**
 * Where the log view stands. Following only means something while more output can come (the job
 * runs, or its last output is still being uploaded); after that the view is simply at the end or not.
 */
export function logFollowText(s: { live: boolean; atEnd: boolean; follow: boolean; running: boolean }): string {
  if (!s.live) return s.atEnd ? "the end of the output: the job has ended" : "the job has ended";
  if (!s.atEnd || !s.follow) return "not following";
  return s.running ? "following the end of the output live" : "following the end of the output";
}

/**
 * The log panel before any output is kept: a running job that prints nothing (a quiet `sleep`, a
 * buffered Python) read "Logs appear here once the job runs on a node" while it ran on one.
 */
export function logEmptyText(running: boolean): string {
  return running
    ? "It has printed nothing yet; what it prints shows here within seconds."
    : "Logs appear here once the job runs on a node.";
}

/** Why a budget's shares cannot be edited here: "outside the subtree you manage" only to a manager. */
export function readOnlyText(managedPaths: readonly string[]): string {
  return managedPaths.length > 0 ? "Read only: outside the subtree you manage" : "Read only: only its managers can change it";
}

/**
 * GPU-hours as a chart plots them: one decimal under 100 (rounded to whole hours, the usage of a young
 * cluster read 1 for 1.3 and 0 for 0.4, against the budgets page's 1.3 and 0.4), whole hours above.
 */
export function chartGpuHours(hours: number): number {
  return hours >= 100 ? Math.round(hours) : Math.round(hours * 10) / 10;
}

/** A node's state as a person says it ("in repair", not REPAIR); the stored code stays in JSON. */
export { nodeChangeReasonText, nodeReasonWords, nodeStateText } from "@tranche/contracts/format";

/**
 * The Budgets page's ratio and what-if cells: no figures yet ("—"), or the ratio in `tranche budgets`'s
 * and the what-if's words ("27% of its share", "no share here"), not a bare 0.27.
 */
export function ratioText(r: number | null | undefined): string {
  return r === undefined ? "—" : shareUsedCell(r);
}

/**
 * The window's preemptions in words: the GPU-hours the stopped runs had run, then how many for each
 * reason, most first ("for a budget further below its share (3)"); moves (R12) are not preemptions.
 */
export function preemptionsText(p: {
  count: number;
  moves: number;
  gpuHours: number;
  byReason: { reason: string; count: number }[];
}): string {
  if (p.count === 0) return p.moves > 0 ? `none · ${plural(p.moves, "move")} to free GPUs` : "none in this window";
  const reasons = p.byReason.map((r) => `${reasonLabel(r.reason, { kind: "PREEMPTED" })} (${r.count})`).join(" · ");
  const hours = `${p.gpuHours.toFixed(p.gpuHours < 10 ? 1 : 0)} GPU-h had run`;
  return reasons ? `${hours} · ${reasons}` : hours;
}

/**
 * Time left until `iso`: "now", "1 min 59 s", "12 min". Under ten minutes it reads to the second, so a
 * countdown never says less than is left (a session's 120 s grace read "1 min" a second after it began).
 */
export function until(iso: string | null | undefined, now: number): string {
  if (!iso) return "—";
  const s = Math.ceil((Date.parse(iso) - now) / 1000);
  return s <= 0 ? "now" : countdownWords(s);
}

/**
 * What a person who charges no budget reads on the Submit and Start-a-session forms, which stay
 * disabled: whom to ask (a budget's managers add members, and admins), not a dead end. Null while the
 * budgets load or when there is one.
 */
export function noBudgetWords(budgets: readonly unknown[] | undefined): string | null {
  if (budgets === undefined || budgets.length > 0) return null;
  return "You are not a member of any budget, so you cannot submit yet. Ask a manager of your group or an admin to add you to a budget.";
}

/** Round steps for a duration axis, in seconds: each a whole number of the unit below it. */
const DURATION_STEPS = [
  1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400, 172_800, 604_800,
];

/**
 * The ticks of a duration axis whose highest value is `maxSeconds`: 0 and at most 5 round steps above
 * it, the last at or above the highest value. Recharts' own ticks (0, 39.5, 79 s, …) read "0 s, 39 s,
 * 1 min, 1 min, 2 min" through formatDuration; these, written exactly (formatExactDuration), each read
 * differently: "0 s, 30 s, 1 min, 1 min 30 s, 2 min".
 */
export function durationTicks(maxSeconds: number): number[] {
  const max = Number.isFinite(maxSeconds) && maxSeconds > 0 ? maxSeconds : 60;
  const step = DURATION_STEPS.find((s) => Math.ceil(max / s) <= 5) ?? Math.ceil(max / 5 / 604_800) * 604_800;
  const n = Math.max(1, Math.ceil(max / step));
  return Array.from({ length: n + 1 }, (_, i) => i * step);
}

/** Under a minimum runtime box (submit and edit): what it protects, and what 0 ("unallocated") means. */
export const MIN_RUNTIME_HINT =
  "Nothing preempts it for this long after each start. 0: unallocated, free on idle GPUs and preemptible at any moment.";
