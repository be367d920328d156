// `tranche update`: change a waiting job in place (Slurm's scontrol update), keeping its place in the queue.
import type { Command } from "commander";
import { explainContract, formatExactDuration, updateJobInput, type JobView } from "@tranche/contracts";
import { api, loadConfig } from "./client";
import { gpus as gpuWords, type Out } from "./format";
import { durationOption, jobIdArg, nodeListOption, slurmTimeOption, usageError } from "./options";

interface UpdateOptions {
  gpus?: string;
  minRuntime?: string;
  maxRuntime?: string;
  priority?: string;
  name?: string;
  budget?: string;
  nodelist?: string;
  exclude?: string;
  array: boolean;
}

const whole = (option: string, v: string) => {
  if (!/^-?\d{1,15}$/.test(v.trim())) throw usageError(`${option} must be a whole number, got '${v}'`);
  return Number(v);
};

/** The request body: only the options given; `--max-runtime none` removes the limit. */
export function updateBody(o: UpdateOptions): Record<string, unknown> {
  return {
    ...(o.gpus !== undefined ? { gpus: whole("--gpus", o.gpus) } : {}),
    ...(o.minRuntime !== undefined ? { minRuntime: durationOption("--min-runtime", o.minRuntime) } : {}),
    ...(o.maxRuntime !== undefined
      ? { maxRuntime: o.maxRuntime.trim() === "none" ? null : durationOption("--max-runtime", o.maxRuntime) }
      : {}),
    ...(o.priority !== undefined ? { priority: whole("--priority", o.priority) } : {}),
    ...(o.name !== undefined ? { name: o.name } : {}),
    ...(o.budget !== undefined ? { budget: o.budget } : {}),
    ...(o.nodelist !== undefined ? { nodes: nodeListOption("--nodelist", o.nodelist, true) } : {}),
    ...(o.exclude !== undefined ? { excludeNodes: nodeListOption("--exclude", o.exclude, true) } : {}),
    ...(o.array ? { array: true } : {}),
  };
}

/** What the job now asks for, in the words of `tranche submit`'s answer. */
export function updatedText(job: JobView): string {
  const runtimes = `protected ${formatExactDuration(job.minRuntime)}, ${job.maxRuntime === null ? "no maximum runtime" : `killed after ${formatExactDuration(job.maxRuntime)}`}`;
  return (
    `Job #${job.id} (${job.name}) is changed and keeps its place in the queue: ${gpuWords(job.gpus)} on ${job.cluster}, charged to ${job.budget}, ${runtimes}, priority ${job.priority}.\n` +
    `${explainContract(job).headline}\nFollow it with: tranche explain ${job.id}`
  );
}

function arrayUpdatedText(r: { arrayId: number; updated: number; notWaiting: number; changed: boolean }): string {
  if (!r.changed) return `The waiting tasks of array ${r.arrayId} already have these values; nothing changed.`;
  return (
    `Array #${r.arrayId}: ${r.updated} waiting task${r.updated === 1 ? "" : "s"} changed, each keeping its place in the queue` +
    (r.notWaiting
      ? `; ${r.notWaiting} that no longer wait${r.notWaiting === 1 ? "s" : ""} (running or ended) left as before.`
      : ".")
  );
}

export function registerUpdate(program: Command, out: Out): void {
  program
    .command("update")
    .description(
      "change a job that waits to start (pending or held), keeping its place in the queue:\n" +
        "tranche update 42 --gpus 4 --max-runtime 2h (only the options given change; its owner, managers of its budget, operators, admins)",
    )
    .argument("<job>", "job id (with --array: the array's id)")
    .option("--gpus <n>", "GPUs (one node, or whole nodes)")
    .option(
      "--min-runtime <duration>",
      "protected time after each start, with its unit: 90m, 2h; 0 = unallocated (free on idle GPUs, preemptible at any moment)",
    )
    .option(
      "--max-runtime <duration|none>",
      "kill after this long, with its unit (<= 15m, <= 8 GPUs and a minimum runtime above 0: debug lane); none: no limit",
    )
    .option("--priority <n>", "order within the budget (higher first)")
    .option("--name <name>", "job name")
    .option("--budget <path>", "budget to charge instead (a leaf the job's owner is a member of)")
    .option("--nodelist <nodes|none>", "run only on these nodes: gpu-03,gpu-04 or gpu-[03-05]; none: any node")
    .option("--exclude <nodes|none>", "never run on these nodes: gpu-07 or gpu-[07-08]; none: no node excluded")
    .option("--array", "change every task of the array <job> that waits to start", false)
    .addOption(slurmTimeOption())
    .action(async (id: string, o: UpdateOptions) => {
      const job = jobIdArg(id, o.array ? "array" : "job");
      const body = updateBody(o);
      // The server's own schema: bad input fails here with its words, before any request.
      const parsed = updateJobInput.safeParse(body);
      if (!parsed.success) throw usageError(parsed.error.issues.map((i) => i.message).join("; "));
      const path = `/jobs/${job}`;
      if (o.array) {
        const r = await api<{ arrayId: number; updated: number; notWaiting: number; changed: boolean }>(
          loadConfig(),
          "PATCH",
          path,
          body,
        );
        out(r, () => arrayUpdatedText(r));
        return;
      }
      const r = await api<{ job: JobView; changed: boolean }>(loadConfig(), "PATCH", path, body);
      out(r, () => (r.changed ? updatedText(r.job) : `Job ${r.job.id} already has these values; nothing changed.`));
    });
}
