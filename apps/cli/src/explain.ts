// `tranche explain JOB`: why a job is where it is, in the job page's words.
import type { Command } from "commander";
import { explainContract, jobEventTitle, type JobView } from "@tranche/contracts";
import {
  arrayTaskText,
  countdownWords,
  expectedStartWords,
  lastCheckpointWords,
  nodeListWords,
  stateWords,
} from "@tranche/contracts/format";
import { api, loadConfig } from "./client";
import { jobIdArg } from "./options";
import { gpus, when, type Out } from "./format";

/** GET /api/v1/jobs/{id}/events: the job, its timeline and its runs. */
export interface JobDetail {
  job: JobView;
  events: { at: string; kind: string; reasonCode: string | null; sentence: string }[];
  segments: { startedAt: string; endedAt: string | null; placements: { node: string; gpuIndexes: number[] }[] }[];
}

/**
 * The job's state, contract, why it waits and when it is expected to start (the core's forecast, as the
 * job page says it), or how long it stays protected, its last checkpoint, where it runs, then its timeline.
 */
export function explainText(d: JobDetail, now = Date.now(), timeZone?: string): string {
  const j = d.job;
  const lines = [
    `Job #${j.id} ${j.name}: ${stateWords(j.state)} · ${gpus(j.gpus)} on ${j.cluster} · ${j.budget} · ${explainContract(j).headline}`,
  ];
  if (j.array) lines.push(`Array #${j.array.id}: ${arrayTaskText(j.array)}.`);
  if (j.after.length > 0)
    lines.push(`Starts after: ${j.after.map((a) => `#${a.jobId} ${a.condition === "OK" ? "succeeds" : "ends"}`).join(", ")}.`);
  if (j.retries.max > 0) lines.push(`Retries: ${j.retries.used} of ${j.retries.max} used.`);
  const nodeWords = nodeListWords(j.nodes, j.excludeNodes);
  if (nodeWords) lines.push(`Nodes: ${nodeWords}`);
  if (j.state === "PENDING" || j.state === "HELD") {
    lines.push(
      j.reason ? `Why it waits: ${j.reason.sentence}` : "Why it waits: the scheduler has not run a cycle since it was submitted.",
    );
    // The forecast once the scheduler has made one: when, or why it cannot say.
    if (j.estimatedStartAt !== null || j.estimatedStartWhy !== null) {
      const words = expectedStartWords(j, now);
      const at = j.estimatedStartAt ? ` (${when(j.estimatedStartAt, timeZone)})` : "";
      lines.push(`${words.charAt(0).toUpperCase()}${words.slice(1)}${at}.`);
    }
  }
  if (j.state === "RUNNING" && j.protectedUntil) {
    // Never less than is left, as the job page counts it down (9 min 25 s read "9 min").
    const left = (Date.parse(j.protectedUntil) - now) / 1000;
    lines.push(
      left > 0
        ? `Protected for ${countdownWords(left)} more, then interruptible.`
        : // A zero minimum never had protection to end (the job page says "none" for it too).
          j.minRuntime > 0
          ? "Interruptible: its protection has ended."
          : "Interruptible from its start: a zero minimum runtime has no protected time.",
    );
  }
  const checkpoint = lastCheckpointWords(j, now);
  if (checkpoint)
    lines.push(`Last checkpoint: ${checkpoint}${j.lastCheckpointAt ? ` (${when(j.lastCheckpointAt, timeZone)})` : ""}.`);
  const open = d.segments.find((s) => s.endedAt === null);
  if (open) lines.push(`Running on ${open.placements.map((p) => `${p.node} [GPUs ${p.gpuIndexes.join(",")}]`).join(", ")}`);
  lines.push("", "Timeline:");
  // Titles, not kinds, as on the job page; --json keeps the kinds for scripts.
  const titles = d.events.map((e) => jobEventTitle(e.kind));
  const width = Math.max(0, ...titles.map((t) => t.length));
  d.events.forEach((e, i) => lines.push(`  ${when(e.at, timeZone).padEnd(16)}  ${titles[i]!.padEnd(width)}  ${e.sentence}`));
  return lines.join("\n");
}

export function registerExplain(program: Command, out: Out): void {
  program
    .command("explain")
    .description("why a job is where it is: state, reason, expected start, timeline")
    .argument("<job>", "job id")
    .action(async (id: string) => {
      const job = jobIdArg(id);
      const d = await api<JobDetail>(loadConfig(), "GET", `/jobs/${job}/events`);
      out(d, () => explainText(d));
    });
}
