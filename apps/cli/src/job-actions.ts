import { Option, type Command } from "commander";
import {
  JOB_ACTION_STATES,
  type JobAction,
  type JobActionFilter,
  type JobActionPreview,
  type JobActionResult,
  type JobView,
} from "@tranche/contracts";
import { jobActionDoneText, jobActionDoneWord, jobActionQuestion, jobActionRefusedText } from "@tranche/contracts/format";
import { api, CliError, loadConfig } from "./client";
import { askYesNo } from "./confirm";
import { stoppingText, type Out } from "./format";
import { jobIdArg, usageError } from "./options";

// `tranche cancel|hold|release`: one job, one array (--array), or many jobs at once, by ids
// (`tranche cancel 41 42 43`) or by a filter of your jobs (`tranche cancel --state pending --name sweep`),
// as Slurm's scancel takes them. Many jobs go in one POST /jobs/actions, each job by its one-job rule.

const tasks = (n: number, what: string) => `${n} ${what} task${n === 1 ? "" : "s"}`;

interface ArrayAnswer {
  arrayId: number;
  cancelled?: number;
  stopping?: number;
  held?: number;
  running?: number;
  released?: number;
  heldByOperator?: number;
}

interface Words {
  description: string;
  /** What --array does, for its help. */
  arrayHelp: string;
  said: (job: JobView) => string;
  arraySaid: (r: ArrayAnswer) => string;
}

const WORDS: Record<JobAction, Words> = {
  cancel: {
    description:
      "cancel jobs (a running one is asked to stop (SIGTERM), then stopped by force (SIGKILL) after its grace period): " +
      "tranche cancel 42, tranche cancel 41 42 43, or your jobs by a filter: tranche cancel --state pending --cluster h100 " +
      "(their owner, managers of their budget, admins)",
    arrayHelp: "cancel every task of the array (its id given) that has not ended",
    said: (job) =>
      job.state === "STOPPING" ? stoppingText(job.id, job.graceUntil) : `Job #${job.id} ${job.state.toLowerCase()}.`,
    arraySaid: (r) => `Array #${r.arrayId}: ${r.cancelled} waiting tasks cancelled, ${r.stopping} running tasks stopping.`,
  },
  hold: {
    description:
      "hold pending jobs: the scheduler skips them until you release them (their owner, managers of their budget, operators, admins); " +
      "one, several (tranche hold 41 42) or your jobs by a filter (tranche hold --state pending --name sweep)",
    arrayHelp: "hold every task of the array (its id given) that waits to start",
    said: (job) =>
      `Job #${job.id} is held: the scheduler skips it until it is released (tranche release ${job.id}).` +
      (job.array
        ? `\nIt is task ${job.array.index} of array #${job.array.id}: tranche hold --array ${job.array.id} holds them all.`
        : ""),
    arraySaid: (r) =>
      `Array #${r.arrayId}: ${tasks(r.held ?? 0, "waiting")} held: the scheduler skips them until they are released (tranche release --array ${r.arrayId})` +
      (r.running ? `; ${tasks(r.running, "running")} go on.` : "."),
  },
  release: {
    description:
      "release held jobs back into the queue, in their place by their budget and submit time (their owner, managers of " +
      "their budget, operators, admins; the owner may not release a hold a manager, an operator or an admin placed); " +
      "one, several (tranche release 41 42) or your jobs by a filter (tranche release --state held --cluster h100)",
    arrayHelp: "release every task of the array (its id given) that is held",
    said: (job) => `Job #${job.id} is released: back in the queue, in its place by its budget and submit time.`,
    arraySaid: (r) =>
      `Array #${r.arrayId}: ${tasks(r.released ?? 0, "held")} released: back in the queue, in their place by their budget and submit time` +
      (r.heldByOperator
        ? `; ${tasks(r.heldByOperator, "other")} held by someone else (an operator, an admin or a manager) stay held.`
        : "."),
  },
};

interface Options {
  array: boolean;
  state?: (typeof JOB_ACTION_STATES)[number];
  name?: string;
  cluster?: string;
  budget?: string;
  everyone: boolean;
  yes: boolean;
}

export function registerJobActions(program: Command, out: Out): void {
  for (const action of ["cancel", "hold", "release"] as const) {
    const w = WORDS[action];
    program
      .command(action)
      .description(w.description)
      .argument("[jobs...]", "job ids (with --array: the array's id)")
      .option("--array", w.arrayHelp, false)
      .addOption(new Option("--state <state>", "your jobs in this state").choices(JOB_ACTION_STATES))
      .option("--name <name>", "your jobs of this name")
      .option("--cluster <name>", "your jobs on this cluster")
      .option("--budget <path>", "your jobs charged to this budget")
      .option(
        "--everyone",
        "with a filter: every job you may act on, not only yours (a manager: also the jobs of the budgets they manage; " +
          "operators, to hold or release, and admins: anyone's)",
        false,
      )
      .option("--yes", `${action} the jobs a filter selects without asking first`, false)
      .action(async (ids: string[], o: Options) => {
        const filter = filterOf(o);
        if (o.array) {
          if (ids.length !== 1 || filter || o.everyone)
            throw usageError(`--array takes one array's id and no filter: tranche ${action} --array 160`);
          const array = jobIdArg(ids[0]!, "array");
          const r = await api<ArrayAnswer>(loadConfig(), "POST", `/arrays/${array}/${action}`);
          return out(r, () => w.arraySaid(r));
        }
        if (filter && ids.length > 0)
          throw usageError(`Name the jobs by their ids or by --state, --name, --cluster and --budget, not both`);
        if (o.everyone && !filter) throw usageError(`--everyone goes with a filter: --state, --name, --cluster or --budget`);
        const given = ids.map((id) => jobIdArg(id));
        if (!filter && ids.length === 0)
          throw usageError(
            `Name the jobs: tranche ${action} 41 42 43, or your jobs by a filter: tranche ${action} --state pending [--name N] [--cluster C] [--budget PATH]`,
          );
        if (!filter && given.length === 1) {
          const { job } = await api<{ job: JobView }>(loadConfig(), "POST", `/jobs/${given[0]}/${action}`);
          return out({ job }, () => w.said(job));
        }
        const chosen = filter ? await confirmFilter(action, filter, o.yes, out) : given;
        if (chosen.length === 0) return;
        const r = await api<JobActionResult>(loadConfig(), "POST", "/jobs/actions", { action, ids: chosen });
        out(r, () => jobActionDoneText(r));
        const refused = jobActionRefusedText(r);
        if (refused) throw new CliError(refused);
      });
  }
}

function filterOf(o: Options): JobActionFilter | undefined {
  const f = { state: o.state, name: o.name, cluster: o.cluster, budget: o.budget };
  if (Object.values(f).every((v) => v === undefined)) return undefined;
  return { ...f, everyone: o.everyone };
}

/**
 * The ids a filter selects now, once the caller said yes to acting on them all (or gave --yes): the
 * request then names those ids, so a job that comes to match meanwhile is not acted on unasked.
 */
async function confirmFilter(action: JobAction, filter: JobActionFilter, yes: boolean, out: Out): Promise<number[]> {
  const { jobs: ids } = await api<JobActionPreview>(loadConfig(), "POST", "/jobs/actions", { action, filter, dryRun: true });
  if (ids.length === 0) {
    out({ action, done: [], refused: [] }, () => `No job ${filter.everyone ? "" : "of yours "}matches: nothing to ${action}.`);
    return [];
  }
  if (yes) return ids;
  if (!process.stdin.isTTY)
    throw new CliError(
      `${jobActionQuestion(action, ids.length)} There is no terminal to ask on: add --yes to ${action} them (nothing was ${jobActionDoneWord(action)}).`,
    );
  if (await askYesNo(jobActionQuestion(action, ids.length))) return ids;
  out({ action, done: [], refused: [] }, () => `Nothing was ${jobActionDoneWord(action)}.`);
  return [];
}
