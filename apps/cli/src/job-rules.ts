import type { Command } from "commander";
import type { WebhookSetView, WebhookView } from "@tranche/contracts";
import { api, loadConfig } from "./client";
import { ago, table, type Out } from "./format";
import { webhookWords } from "./webhook-words";
import { jobIdArg, perUserLimitArg, usageError } from "./options";
import { perUserLimitText } from "./budgets";

/** `tranche depend`, `tranche notifications`, `tranche webhook`, `tranche limit`. */
export function registerJobRules(program: Command, out: Out): void {
  const collect = (v: string, prev: string[]) => [...prev, v];
  program
    .command("depend")
    .description("replace a waiting job's dependencies: tranche depend 42 --after 41:ok [--after 40:any] (no --after: none)")
    .argument("<job>", "job id")
    .option("--after <JOB[:ok|:any]>", "start after this job succeeds (:ok) or ends (:any); repeatable", collect, [])
    .action(async (id: string, o: { after: string[] }) => {
      const job = jobIdArg(id);
      const after = o.after.flatMap((a) => a.split(",")).filter((a) => a.trim() !== "");
      const r = await api<{ jobId: number; after: { parentId: number; condition: string }[] }>(
        loadConfig(),
        "PUT",
        `/jobs/${job}/dependencies`,
        { after },
      );
      out(r, () =>
        r.after.length === 0
          ? `Job #${r.jobId} depends on no job now.`
          : `Job #${r.jobId} starts after ${r.after.map((d) => `#${d.parentId} ${d.condition === "OK" ? "succeeds" : "ends"}`).join(" and ")}.`,
      );
    });

  program
    .command("notifications")
    .description("your notifications: starts, preemption warnings, ends, failures, squatting flags")
    .option("--unread", "only unread ones", false)
    .option("--mark-read", "mark them all read", false)
    .action(async (o: { unread: boolean; markRead: boolean }) => {
      const cfg = loadConfig();
      const r = await api<{
        unread: number;
        notifications: { id: string; kind: string; title: string; createdAt: string; read: boolean }[];
      }>(cfg, "GET", `/notifications${o.unread ? "?unread=true" : ""}`);
      if (o.markRead) await api(cfg, "POST", "/notifications/read", {});
      out(r, () =>
        r.notifications.length === 0
          ? "No notifications."
          : `${r.unread} unread${o.markRead ? " (now marked read)" : ""}\n` +
            table(
              ["", "WHEN", "WHAT"],
              r.notifications.map((n) => [n.read ? "" : "*", ago(n.createdAt), n.title]),
            ),
      );
    });

  program
    .command("webhook")
    .description(
      "where your notifications are also POSTed as JSON, signed: tranche webhook https://... | --new-secret | --off | (none: show it)",
    )
    .argument("[url]", "an http:// or https:// address")
    .option("--new-secret", "replace the secret its POSTs are signed with", false)
    .option("--off", "stop sending them", false)
    .action(async (url: string | undefined, o: { off: boolean; newSecret: boolean }) => {
      if ([url !== undefined, o.off, o.newSecret].filter(Boolean).length > 1)
        throw usageError("Give one of: an address, --new-secret, --off (or nothing, to show your webhook)");
      const cfg = loadConfig();
      const r = o.newSecret
        ? await api<WebhookSetView>(cfg, "POST", "/me/webhook/secret")
        : url || o.off
          ? await api<WebhookSetView>(cfg, "PUT", "/me/webhook", { url: o.off ? null : url })
          : await api<WebhookView>(cfg, "GET", "/me/webhook");
      out(r, () => webhookWords(r));
    });

  program
    .command("limit")
    .description("set a budget's per-user GPU limit (its managers): tranche limit lab/nlp/p1 16 | tranche limit lab/nlp/p1 none")
    .argument("<budget>", "budget path")
    .argument("<gpus>", "GPUs one user's jobs in it may hold at once, or none")
    .action(async (budget: string, gpus: string) => {
      const maxGpusPerUser = perUserLimitArg(gpus);
      const r = await api<{ budget: string; maxGpusPerUser: number | null }>(loadConfig(), "PUT", "/budgets/user-limit", {
        budget,
        maxGpusPerUser,
      });
      out(r, () => perUserLimitText(r.budget, r.maxGpusPerUser));
    });
}
