// `tranche`: the command line for Tranche's REST API (/api/v1). Every command takes --json.
//   tranche login --url http://127.0.0.1:3000 --token trn_...
//   tranche submit --cluster h100 --budget lab/language/pretraining --gpus 8 --min-runtime 2h --resumable -- python train.py
//   tranche submit --file jobs.jsonl          (one JSON job per line, sent in batches of 1,000)
//   tranche ls | tranche queue h100 [--budget lab/vision] | tranche explain 42 | tranche logs -f 42 | tranche cancel 42 | tranche hold [--array] 42 | tranche release [--array] 42
//   tranche update 42 --gpus 4 --max-runtime 2h   (a waiting job, keeping its place; --array: every waiting task)
//   tranche cancel 41 42 43 | tranche hold --state pending --name sweep [--cluster C] [--budget PATH] [--everyone] [--yes]
//   tranche session --cluster h100 --budget lab/nlp --gpus 1 --min-runtime 4h [--jupyter] | tranche extend 42 --by 1h
//   tranche budgets h100 | tranche nodes h100 | tranche node show h100-3 | tranche node drain h100-3 --reason "fan failure"
//   tranche admin budget create lab/vision/video | tranche admin user create --email E --name N ...
//   tranche admin import lab.yaml [--dry-run]   (users, tree, managers, members, shares from one file)
import { readFileSync } from "node:fs";
import { Command, Option } from "commander";
import {
  LIMITS,
  MAX_BATCH_JOBS,
  explainContract,
  fieldIssues,
  issuesSentence,
  utf8Bytes,
  submitJobInput,
  type JobRowsView,
  type JobView,
} from "@tranche/contracts";
import { jobListRows } from "@tranche/contracts/format";
import { registerAdmin } from "./admin";
import { registerBudgets } from "./budgets";
import { registerReport } from "./report";
import { registerExplain } from "./explain";
import { registerJobActions } from "./job-actions";
import { JOB_LIST_HEAD, arrayListRow, jobListRow } from "./job-list";
import { registerJobRules } from "./job-rules";
import { registerLogs } from "./logs";
import { registerNodes } from "./nodes";
import { registerSession } from "./session";
import { registerQueue } from "./queue";
import { registerTokens } from "./tokens";
import { registerUpdate } from "./update";
import { api, CliError, loadConfig, saveConfig } from "./client";
import { commandLine, scriptCommand } from "./command-line";
import { countOption, durationOption, nodeListOption, slurmTimeOption, usageError } from "./options";
import { gpus as gpuWords, printable, table, type Out } from "./format";

const program = new Command();
program
  .name("tranche")
  .description("Submit and follow GPU jobs on a Tranche cluster")
  .option("--json", "print JSON instead of text")
  // One line after a mistyped option or command, as sbatch's "Try sbatch --help": the whole help (45
  // lines for submit) pushed the error itself off the screen.
  .showHelpAfterError("(add --help to see the options)")
  // Commander's own usage errors (a missing argument, an unknown option) exit 2 as the CLI's do
  // (options.ts usageError); its help and version exit 0. Set before the commands: they inherit it.
  .exitOverride((e) => process.exit(e.exitCode === 0 ? 0 : 2));

const json = () => program.opts<{ json?: boolean }>().json === true;
// Text answers hold what other users wrote (names, reasons): printable() keeps their escapes off the terminal.
const out: Out = (value, text) => console.log(json() ? JSON.stringify(value, null, 2) : printable(text()));

program
  .command("login")
  .description("save the server URL and an API token (create one in the web app under API tokens)")
  .requiredOption("--url <url>", "the Tranche server, e.g. http://127.0.0.1:3000")
  .requiredOption("--token <token>", "an API token (trn_...)")
  .action(async (o: { url: string; token: string }) => {
    const cfg = { url: o.url.replace(/\/$/, ""), token: o.token };
    const me = await api<{ user: { name: string; email: string; role: string } }>(cfg, "GET", "/me");
    const path = saveConfig(cfg);
    out(
      { ...me, url: cfg.url, config: path },
      () => `Signed in to ${cfg.url} as ${me.user.name} <${me.user.email}> (${me.user.role.toLowerCase()}). Saved to ${path}.`,
    );
  });

const collect = (v: string, prev: string[]) => [...prev, v];

program
  .command("submit")
  .description(
    "submit a job: tranche submit --cluster C --budget PATH --gpus N --min-runtime 2h [options] -- command...\n" +
      "or many at once: tranche submit --file jobs.jsonl (one JSON job per line, as for POST /api/v1/jobs; - reads stdin)",
  )
  .option("--file <path>", "submit the jobs of a JSON Lines file (one job object per line) in batches of 1,000")
  .option("--script <path>", "run this script file (its #! line picks the interpreter) instead of a command after --")
  .option("--cluster <name>", "cluster name")
  .option("--budget <path>", "budget to charge, e.g. lab/language/pretraining")
  .option("--gpus <n>", "GPUs (one node, or whole nodes)")
  .option(
    "--min-runtime <duration>",
    "protected time after each start, with its unit: 90m, 2h, 1h30m; 0 = unallocated (free on idle GPUs, preemptible at any moment)",
  )
  .option(
    "--max-runtime <duration>",
    "kill after this long, with its unit (<= 15m, <= 8 GPUs and a minimum runtime above 0: debug lane)",
  )
  .option("--resumable", "restarts from its own checkpoints: requeued after preemption", false)
  .option("--requeue", "requeue after preemption even though not resumable", false)
  .option("--priority <n>", "order within the budget (higher first)", "0")
  .option(
    "--grace <duration>",
    "how long it has to save its work once asked to stop (SIGTERM) before it is stopped by force (SIGKILL), with its unit: 30s, 5m",
  )
  .option("--name <name>", "job name")
  .option("--array <spec>", "a job array: 0-99, 1,3,5-7 or 0-99%10 (at most 10 running); TRANCHE_ARRAY_INDEX in each task's env")
  .addOption(
    new Option(
      "--after <JOB[:ok|:any]>",
      "start after this job succeeds (:ok, the default) or ends (:any); repeatable, or comma-separated",
    )
      .argParser(collect)
      .default([]),
  )
  .option("--retries <n>", "requeue a run that exits non-zero up to n times (0..10)", "0")
  .option("--nodelist <nodes>", "run only on these nodes: gpu-03,gpu-04 or gpu-[03-05] (Slurm's --nodelist)")
  .option("--exclude <nodes>", "never run on these nodes: gpu-07 or gpu-[07-08,11] (Slurm's --exclude)")
  .addOption(slurmTimeOption())
  .addOption(new Option("--env <KEY=VALUE>", "environment variable (repeatable)").argParser(collect).default([]))
  .addOption(
    new Option(
      "--secret-env <KEY[=VALUE]>",
      "secret environment variable, never shown after submit (repeatable); without =VALUE it is taken from your environment",
    )
      .argParser(collect)
      .default([]),
  )
  .argument("[command...]", "the command to run (after --)")
  .action(async (command: string[], o: Record<string, string | boolean | string[] | undefined>) => {
    if (typeof o.file === "string") {
      if (command.length > 0 || o.script || o.cluster || o.budget || o.gpus || o.minRuntime)
        throw usageError(
          "--file takes the jobs from the file: give no --cluster/--budget/--gpus/--min-runtime or command with it",
        );
      await submitFile(o.file);
      return;
    }
    for (const [flag, v] of [
      ["--cluster", o.cluster],
      ["--budget", o.budget],
      ["--gpus", o.gpus],
      ["--min-runtime", o.minRuntime],
    ] as const)
      if (v === undefined) throw usageError(`required option '${flag}' not specified (or give --file jobs.jsonl)`);
    if (typeof o.script === "string" && command.length > 0)
      throw usageError("give either --script FILE or a command after --, not both");
    let commandText: string;
    if (typeof o.script === "string") {
      try {
        commandText = scriptCommand(readFileSync(o.script, "utf8"));
      } catch (e) {
        throw new CliError(`Cannot read ${o.script}: ${(e as Error).message}`);
      }
      if (!commandText.trim()) throw new CliError(`${o.script} is empty: nothing to run`);
    } else if (command.length === 0)
      throw usageError("missing the command to run: tranche submit [options] -- command... (or --script FILE)");
    else commandText = commandLine(command);
    const env: Record<string, string> = {};
    for (const kv of o.env as string[]) {
      const i = kv.indexOf("=");
      if (i <= 0) throw usageError(`--env '${kv}' is not KEY=VALUE`);
      env[kv.slice(0, i)] = kv.slice(i + 1);
    }
    const secretEnv: Record<string, string> = {};
    for (const kv of o.secretEnv as string[]) {
      const i = kv.indexOf("=");
      const key = i < 0 ? kv : kv.slice(0, i);
      const value = i < 0 ? process.env[kv] : kv.slice(i + 1);
      if (!key) throw usageError(`--secret-env '${kv}' is not KEY or KEY=VALUE`);
      if (value === undefined) throw new CliError(`--secret-env ${key}: ${key} is not set in your environment`);
      secretEnv[key] = value;
    }
    const num = (s: unknown, what: string) => {
      const n = Number(s);
      if (!Number.isFinite(n)) throw usageError(`${what} must be a number, got '${String(s)}'`);
      return n;
    };
    const body = {
      cluster: o.cluster,
      budget: o.budget,
      gpus: num(o.gpus, "--gpus"),
      minRuntime: durationOption("--min-runtime", o.minRuntime as string),
      maxRuntime: typeof o.maxRuntime === "string" ? durationOption("--max-runtime", o.maxRuntime) : null,
      resumable: o.resumable === true,
      requeue: o.requeue === true ? true : undefined,
      priority: num(o.priority, "--priority"),
      gracePeriod: typeof o.grace === "string" ? durationOption("--grace", o.grace) : null,
      // argv kept exactly: each argument quoted back for the shell the node agent runs it with.
      command: commandText,
      env,
      secretEnv,
      ...(o.name ? { name: o.name } : {}),
      ...(typeof o.array === "string" ? { array: o.array } : {}),
      after: (o.after as string[]).flatMap((a) => a.split(",")).filter((a) => a.trim() !== ""),
      retries: num(o.retries, "--retries"),
      ...(typeof o.nodelist === "string" ? { nodes: nodeListOption("--nodelist", o.nodelist) } : {}),
      ...(typeof o.exclude === "string" ? { excludeNodes: nodeListOption("--exclude", o.exclude) } : {}),
    };
    // The same zod schema as the server: bad input fails here with the same message, before any request.
    const parsed = submitJobInput.safeParse(body);
    if (!parsed.success) throw usageError(parsed.error.issues.map((i) => i.message).join("; "));
    const { job } = await api<{ job: JobView }>(loadConfig(), "POST", "/jobs", body);
    const words = explainContract(job);
    out({ job }, () =>
      job.array
        ? `Submitted array #${job.id} (${job.name}, ${job.array.spec}): each task ${gpuWords(job.gpus)} on ${job.cluster}, charged to ${job.budget}.\n${words.headline}\nFollow it with: tranche ls; cancel it all with: tranche cancel --array ${job.id}`
        : `Submitted job #${job.id} (${job.name}): ${gpuWords(job.gpus)} on ${job.cluster}, charged to ${job.budget}.\n${words.headline}\nFollow it with: tranche explain ${job.id}`,
    );
  });

/** Batches of at most MAX_BATCH_JOBS jobs whose request body stays under the server's byte limit. */
function batches<J extends { body: unknown }>(jobs: J[]): J[][] {
  const out: J[][] = [];
  const empty = utf8Bytes('{"jobs":[]}');
  let cur: J[] = [];
  let bytes = empty;
  for (const j of jobs) {
    const size = utf8Bytes(JSON.stringify(j.body)) + 1;
    if (cur.length > 0 && (cur.length >= MAX_BATCH_JOBS || bytes + size > LIMITS.batchRequestBytes)) {
      out.push(cur);
      cur = [];
      bytes = empty;
    }
    cur.push(j);
    bytes += size;
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

/**
 * `tranche submit --file jobs.jsonl`: every line is checked with the server's zod schema first (a bad
 * line stops everything before any request, naming the line), then the jobs go in batches of
 * MAX_BATCH_JOBS (and under the batch byte limit) through POST /api/v1/jobs/batch; each batch is
 * stored whole or not at all.
 */
async function submitFile(path: string): Promise<void> {
  let text: string;
  try {
    text = path === "-" ? readFileSync(0, "utf8") : readFileSync(path, "utf8");
  } catch (e) {
    throw new CliError(`Cannot read ${path}: ${(e as Error).message}`);
  }
  const jobs: { line: number; body: unknown }[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    let body: unknown;
    try {
      body = JSON.parse(line);
    } catch {
      throw new CliError(`${path} line ${i + 1}: not valid JSON (one job object per line)`);
    }
    const parsed = submitJobInput.safeParse(body);
    if (!parsed.success)
      throw new CliError(
        // REST's words for the same line (each issue led by its field unless it names it already).
        `${path} line ${i + 1}: ${issuesSentence(fieldIssues(parsed.error))}`,
      );
    jobs.push({ line: i + 1, body });
  });
  if (jobs.length === 0) throw new CliError(`${path} holds no jobs (one JSON job object per line)`);
  const cfg = loadConfig();
  const submitted: JobView[] = [];
  for (const chunk of batches(jobs)) {
    try {
      const r = await api<{ jobs: JobView[] }>(cfg, "POST", "/jobs/batch", { jobs: chunk.map((j) => j.body) });
      submitted.push(...r.jobs);
    } catch (e) {
      if (!(e instanceof CliError)) throw e;
      // The server names the item (jobs.3: ...): say which line of the file it is.
      const msg = e.message.replace(/\bjobs\.(\d+)\b/g, (m, n: string) => {
        const line = chunk[Number(n)]?.line;
        return line ? `${path} line ${line}` : m;
      });
      const kept = submitted.length
        ? ` The ${submitted.length} jobs of the earlier batches were submitted (#${submitted[0]!.id}-#${submitted.at(-1)!.id}).`
        : " Nothing was submitted.";
      throw new CliError(`${msg.replace(/\.?$/, ".")}${kept}`);
    }
  }
  const gpus = submitted.reduce((n, j) => n + j.gpus, 0);
  out(
    { jobs: submitted },
    () =>
      `Submitted ${submitted.length} job${submitted.length === 1 ? "" : "s"} (#${submitted[0]!.id}${submitted.length > 1 ? `-#${submitted.at(-1)!.id}` : ""}), ${gpuWords(gpus)} in all. Follow them with: tranche ls`,
  );
}

program
  .command("ls")
  .description("your jobs (active by default), each job array as one line")
  .option("--all", "include finished jobs", false)
  .option("--everyone", "everyone's jobs (managers, operators, admins)", false)
  .option("--cluster <name>", "only this cluster")
  .option("--array <id>", "the tasks of this job array, one line each")
  .option("--tasks", "every task of every array, one line each (as before arrays were one line)", false)
  .option("--limit <n>", "at most this many", "50")
  .action(async (o: { all: boolean; everyone: boolean; cluster?: string; array?: string; tasks: boolean; limit: string }) => {
    const limit = countOption("--limit", o.limit);
    const q = new URLSearchParams({ limit: String(limit), scope: o.everyone ? "all" : "mine" });
    if (!o.all) q.set("active", "true");
    if (o.cluster) q.set("cluster", o.cluster);
    if (o.array !== undefined) q.set("array", String(countOption("--array", o.array)));
    const none = o.all ? "No jobs." : "No pending or running jobs (tranche ls --all shows finished ones).";
    // --json keeps its task-per-job list, as scripts read it; the text folds each array into one line.
    if (json() || o.tasks || o.array !== undefined) {
      const { jobs } = await api<{ jobs: JobView[] }>(loadConfig(), "GET", `/jobs?${q}`);
      return out({ jobs }, () =>
        jobs.length === 0
          ? none
          : table(
              JOB_LIST_HEAD,
              jobs.map((j) => jobListRow(j)),
            ),
      );
    }
    q.set("arrays", "rows");
    const rows = await api<JobRowsView>(loadConfig(), "GET", `/jobs?${q}`);
    out(rows, () =>
      rows.jobs.length + rows.arrays.length === 0
        ? none
        : table(
            JOB_LIST_HEAD,
            jobListRows(rows).map((r) => (r.array ? arrayListRow(r.array) : jobListRow(r.job))),
          ),
    );
  });

registerQueue(program, out);
registerJobActions(program, out);
registerExplain(program, out);
registerUpdate(program, out);
registerJobRules(program, out);
registerLogs(program, json);
registerSession(program, out);
registerNodes(program, out);
registerBudgets(program, out);
registerReport(program, out);
registerTokens(program, out);
registerAdmin(program, out);

program.parseAsync(process.argv).catch((e: unknown) => {
  const msg = e instanceof Error ? e.message : String(e);
  if (json()) console.error(JSON.stringify({ error: { message: msg } }));
  else console.error(`tranche: ${printable(msg)}`);
  process.exit(e instanceof CliError ? e.exitCode : 1);
});
