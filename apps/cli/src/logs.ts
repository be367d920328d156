// `tranche logs [-f] [--stderr] [--raw] JOB`: a job's output, read page by page from GET /api/v1/jobs/{id}/logs.
// On a terminal its control characters are written out (^[, ^M) rather than sent, unless --raw.
import type { Command } from "commander";
import { formatBytes, nodeLineLabeller, type JobLogPage, type JobView, type LogChunkView } from "@tranche/contracts";
import { api, loadConfig } from "./client";
import type { JobDetail } from "./explain";
import { tailPage } from "./log-tail";
import { visible } from "./format";
import { countOption, jobIdArg } from "./options";

const PAGE = 1000;

/** Writes and waits while the pipe is full: `tranche logs 7 | less` of a long log stays within memory. */
function write(text: string): Promise<void> {
  return new Promise((resolve) => (process.stdout.write(text) ? resolve() : process.stdout.once("drain", resolve)));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function registerLogs(program: Command, json: () => boolean): void {
  program
    .command("logs")
    .description(
      "a job's output (stdout, or stderr with --stderr); -f follows it until the job ends and exits with its outcome (0 when it completed, else its exit code, or 1). On a terminal its control characters show as ^[, ^M instead of acting (--raw: as printed)",
    )
    .argument("<job>", "job id")
    .option("-f, --follow", "keep printing new output until the job ends; exit with its outcome, as srun does", false)
    .option("--stderr", "the job's stderr instead of its stdout", false)
    .option("--tail <n>", "start with the last N lines of output instead of the whole log (as tail -n)")
    .option(
      "--raw",
      "print the output's bytes as they are, escape sequences included, also on a terminal (where its control characters are otherwise shown as ^[, ^M; piped output is always as printed)",
      false,
    )
    .action(async (id: string, o: { follow: boolean; stderr: boolean; tail?: string; raw: boolean }) => {
      jobIdArg(id);
      const tail = o.tail === undefined ? null : countOption("--tail", o.tail, PAGE);
      const cfg = loadConfig();
      const base = `/jobs/${id}/logs?stream=${o.stderr ? "stderr" : "stdout"}`;
      const read = (q: string) => api<JobLogPage>(cfg, "GET", `${base}${q}`);
      const first = tail !== null ? await tailPage(read, tail, tail) : await read(`&after=0&limit=${PAGE}`);
      if (first.droppedBytes > 0 && !json())
        process.stderr.write(
          `tranche: ${formatBytes(first.droppedBytes)} of this job's older output was dropped (log retention); the full output is in its log files on its nodes\n`,
        );
      // Nothing printed and nothing said read as a job that ran and printed nothing.
      if (!o.follow && !json() && first.chunks.length === 0 && (first.state === "PENDING" || first.state === "HELD"))
        process.stderr.write(`tranche: job ${id} has not started yet, so it has no output; tranche logs -f ${id} waits for it\n`);
      const nodesOfJob = async () => {
        const d = await api<Pick<JobDetail, "segments">>(cfg, "GET", `/jobs/${id}/events`);
        return d.segments.flatMap((s) => s.placements.map((p) => p.node));
      };
      await print(first, {
        show: json()
          ? async (chunks) => chunks.map((c) => JSON.stringify(c) + "\n")
          : logText(nodesOfJob, { visible: showsControls(o.raw, process.stdout.isTTY) }),
        follow: o.follow,
        whole: tail === null,
        next: (after) => read(`&after=${after}&limit=${PAGE}`),
      });
      // Followed to its end: a job that did not complete says so, since its output alone may not (a
      // program that was not found prints only to stderr), and the exit status says it to a script
      // (`tranche logs -f 42 && tranche submit ...`), as srun's does.
      if (o.follow) {
        const { job } = await api<{ job: JobView }>(cfg, "GET", `/jobs/${id}`);
        const how = endedHow(job, o.stderr);
        if (how && !json()) process.stderr.write(`tranche: ${how}\n`);
        process.exitCode = followedExitCode(job);
      }
    });
}

/**
 * Prints pages until the end of the kept log; following, keeps reading what comes after (every 0.25 s
 * to 2 s, slower while nothing comes) until the server says the log is complete: the job has ended and
 * its agents have uploaded all of its output.
 */
async function print(
  first: JobLogPage,
  o: {
    show: (chunks: readonly LogChunkView[]) => Promise<string[]>;
    follow: boolean;
    whole: boolean;
    next: (after: string) => Promise<JobLogPage>;
  },
): Promise<void> {
  let p = first;
  let quiet = 0;
  for (;;) {
    for (const text of await o.show(p.chunks)) await write(text);
    const full = p.chunks.length >= PAGE;
    if (!o.follow && (!o.whole || !full)) return;
    if (!full) {
      if (p.complete) return;
      await sleep(Math.min(2000, 250 * 2 ** Math.min(quiet++, 3)));
    } else quiet = 0;
    p = await o.next(p.next);
    if (p.chunks.length > 0) quiet = 0;
  }
}

/**
 * Whether `tranche logs` writes out a job's control characters (visible()) rather than sending them: on a
 * terminal, where a job's output could otherwise retitle it, clear it, write its clipboard or overwrite
 * the node a line starts with; not with --raw, nor into a pipe or file, which keeps the bytes printed.
 */
export function showsControls(raw: boolean, isTTY: boolean | undefined): boolean {
  return !raw && isTTY === true;
}

/**
 * A job's log chunks as text: each line labelled with its node ("[h100-29] step 44") when the job's
 * output comes from several nodes, as on the job page; as printed when from one. The job's nodes are
 * those of its runs (`nodesOfJob`), asked when a chunk comes from a node not yet among them: once for
 * a job that ran on one node, again when a followed job starts, or is requeued onto another node.
 * With `visible`, control characters are written out after labelling, labels included: lines break at
 * line breaks only, and a CR inside a line shows as ^M, so no line can pass for another node's.
 */
export function logText(
  nodesOfJob: () => Promise<string[]>,
  o: { visible: boolean } = { visible: false },
): (chunks: readonly LogChunkView[]) => Promise<string[]> {
  const nodes = new Set<string>();
  const label = nodeLineLabeller();
  return async (chunks) => {
    if (chunks.some((c) => c.node !== null && !nodes.has(c.node))) {
      for (const n of await nodesOfJob()) nodes.add(n);
      for (const c of chunks) if (c.node !== null) nodes.add(c.node);
    }
    return chunks.map((c) => {
      const text = label(c, nodes.size > 1);
      return o.visible ? visible(text) : text;
    });
  };
}

const ENDS: Partial<Record<JobView["state"], string>> = {
  FAILED: "failed",
  PREEMPTED: "was preempted by the scheduler and not requeued",
  CANCELLED: "was cancelled",
  KILLED: "was killed (past its max runtime)",
  LOST: "was lost with its node and not requeued",
};

/**
 * The exit status of `tranche logs -f` once the job has ended: 0 when it completed; its own exit code when
 * it ended with one (a failure, or 143 when stopped by SIGTERM); 1 when it ended without one (cancelled
 * before it started, lost with its node). A script can then chain on the job's success, as with srun.
 */
export function followedExitCode(job: Pick<JobView, "state" | "exitCode">): number {
  if (job.state === "COMPLETED") return 0;
  return job.exitCode !== null && job.exitCode >= 1 && job.exitCode <= 255 ? job.exitCode : 1;
}

/** How a followed job ended, in words, when it did not simply complete; null when it completed. */
export function endedHow(job: Pick<JobView, "id" | "state" | "exitCode">, readingStderr: boolean): string | null {
  if (job.state === "COMPLETED") return null;
  const code = job.exitCode === null ? "" : ` (exit code ${job.exitCode})`;
  // A preempted job was ended by the scheduler, not by an error of its own: its error output says nothing of why.
  const stderr = readingStderr || job.state === "PREEMPTED" ? "" : `; its error output: tranche logs --stderr ${job.id}`;
  return `job ${job.id} ${ENDS[job.state] ?? `is ${job.state.toLowerCase()}`}${code}${stderr}`;
}
