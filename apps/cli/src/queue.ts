// `tranche queue <cluster> [--budget PATH]`: a cluster's live queue, as squeue lists it (squeue -A: one
// account and its sub-accounts). Its columns say what an empty value means, in the words `tranche ls` uses.
import type { Command } from "commander";
import { expectedStartWords } from "@tranche/contracts/format";
import { reasonLabel } from "@tranche/contracts/reasons";
import { api, loadConfig } from "./client";
import { ago, table, type Out } from "./format";
import { countOption } from "./options";

export interface QueueResponse {
  cluster: { name: string; gpus: number; readyGpus: number };
  budget?: string | null;
  cycle: { at: string } | null;
  counts: { pending: number; held: number; running: number; pendingGpus: number; runningGpus: number };
  pending: {
    id: number;
    position: number | null;
    budget: string;
    user: string;
    gpus: number;
    lane: string;
    queuedAt: string;
    reasonCode: string | null;
    reasonSentence: string | null;
    estimatedStartAt: string | null;
    estimatedStartWhy: string | null;
    estimatedStartAfter: number[];
    state: string;
    /** A task of a job array: "task 7 of 0-99%10". */
    task?: string | null;
  }[];
}

/** Its place in line: a number, "held", or "not in line" for a job the scheduler has not ordered (yet). */
export const placeText = (p: { state: string; position: number | null }): string | number =>
  p.state === "HELD" ? "held" : (p.position ?? "not in line");

export function queueText(q: QueueResponse, now = Date.now()): string {
  const c = q.counts;
  const whose = q.budget ? `, budget ${q.budget} and below` : "";
  return [
    `${q.cluster.name}${whose}: ${c.running} running (${c.runningGpus}/${q.cluster.gpus} GPUs), ${c.pending} pending (${c.pendingGpus} GPUs)${c.held ? `, ${c.held} held` : ""}; latest cycle ${q.cycle ? ago(q.cycle.at, now) + " ago" : "none yet"}`,
    "",
    q.pending.length
      ? table(
          ["POS", "ID", "BUDGET", "USER", "GPUS", "WAIT", "STARTS", "REASON"],
          q.pending.map((p) => [
            placeText(p),
            p.task ? `${p.id} (${p.task})` : p.id,
            p.budget,
            p.user,
            p.gpus,
            ago(p.queuedAt, now),
            expectedStartWords(p, now, { short: true }),
            p.reasonCode ? (p.reasonSentence ?? reasonLabel(p.reasonCode)) : "waiting for the next cycle",
          ]),
        )
      : q.budget
        ? `No pending jobs in ${q.budget} or below.`
        : "No pending jobs.",
  ].join("\n");
}

export function registerQueue(program: Command, out: Out): void {
  program
    .command("queue")
    .description("a cluster's live queue: pending jobs in scheduler order with reasons (as squeue)")
    .argument("<cluster>", "cluster name")
    .option("--budget <path>", "only the jobs of this budget and the budgets below it (as squeue -A), e.g. lab/vision")
    .option("--limit <n>", "pending rows to show", "25")
    .action(async (cluster: string, o: { budget?: string; limit: string }) => {
      const limit = countOption("--limit", o.limit);
      const query = new URLSearchParams({ limit: String(limit) });
      if (o.budget !== undefined) query.set("budget", o.budget);
      const q = await api<QueueResponse>(loadConfig(), "GET", `/queue/${encodeURIComponent(cluster)}?${query}`);
      out(q, () => queueText(q));
    });
}
