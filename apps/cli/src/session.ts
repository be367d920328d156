// `tranche session` (start an interactive session) and `tranche extend` (more protection for one).
import type { Command } from "commander";
import { formatDuration, startSessionInput, type JobView } from "@tranche/contracts";
import { countdownWords } from "@tranche/contracts/format";
import { api, loadConfig } from "./client";
import type { Out } from "./format";
import { durationOption, jobIdArg, slurmTimeOption, usageError } from "./options";

export function registerSession(program: Command, out: Out): void {
  program
    .command("session")
    .description(
      "start an interactive session (a shell server, or Jupyter with --jupyter) that you reach in the web app:\n" +
        "tranche session --cluster C --budget PATH --gpus 1 --min-runtime 4h [--jupyter]",
    )
    .requiredOption("--cluster <name>", "cluster")
    .requiredOption("--budget <path>", "budget to charge (a leaf you are a member of)")
    .option("--gpus <n>", "GPUs", "1")
    .requiredOption("--min-runtime <duration>", "protected time after each start, e.g. 4h (capped by the cluster)")
    .option("--max-runtime <duration>", "the session is stopped after this long")
    .option("--jupyter", "run Jupyter instead of the shell server (it must be installed on the nodes)", false)
    .option("--name <name>", "a name for the session")
    .addOption(slurmTimeOption())
    .action(
      async (o: {
        cluster: string;
        budget: string;
        gpus: string;
        minRuntime: string;
        maxRuntime?: string;
        jupyter: boolean;
        name?: string;
      }) => {
        const gpus = Number(o.gpus);
        const body = {
          cluster: o.cluster,
          budget: o.budget,
          gpus: Number.isFinite(gpus) ? gpus : (o.gpus as unknown as number),
          minRuntime: durationOption("--min-runtime", o.minRuntime),
          ...(o.maxRuntime ? { maxRuntime: durationOption("--max-runtime", o.maxRuntime) } : {}),
          jupyter: o.jupyter,
          ...(o.name ? { name: o.name } : {}),
        };
        // The server's own schema first: bad input fails here with the same words, before any request.
        const parsed = startSessionInput.safeParse(body);
        if (!parsed.success) throw usageError(parsed.error.issues.map((i) => i.message).join("; "));
        const cfg = loadConfig();
        const { job } = await api<{ job: JobView }>(cfg, "POST", "/sessions", body);
        out({ job }, () =>
          [
            // Submitted, not started: a session waits in the queue like any job until a cycle starts it.
            `Submitted session #${job.id} (${o.jupyter ? "Jupyter" : "shell server"}): ${job.gpus} GPU${job.gpus === 1 ? "" : "s"} on ${job.cluster}, charged to ${job.budget}.`,
            `Protected for ${formatDuration(job.minRuntime)} after each start; if preempted after that it comes back with its files.`,
            `Open it once it runs: ${cfg.url}/jobs/${job.id} (the page links to it and prints SSH instructions); until then, tranche explain ${job.id} says why it waits.`,
          ].join("\n"),
        );
      },
    );

  program
    .command("extend")
    .description("protect a running session longer: tranche extend 42 --by 1h (a new contract, charged to its budget)")
    .argument("<job>", "session id")
    .requiredOption("--by <duration>", "how much longer, e.g. 1h")
    .action(async (id: string, o: { by: string }) => {
      const session = jobIdArg(id, "session");
      const by = durationOption("--by", o.by);
      const { job } = await api<{ job: JobView }>(loadConfig(), "POST", `/jobs/${session}/extend`, { by });
      out({ job }, () => {
        const left = job.protectedUntil ? (Date.parse(job.protectedUntil) - Date.now()) / 1000 : 0;
        return `Session #${job.id} is protected for ${countdownWords(left)} more (a new contract of ${formatDuration(job.minRuntime)} after its start, charged to ${job.budget}).`;
      });
    });
}
