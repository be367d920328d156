import type { Command } from "commander";
import {
  healthErrors,
  maintenanceTimeWords,
  NODE_STATE_WORDS,
  parseNodeStateWords,
  retiredNodeSentence,
  type NodeEventView,
  type NodeState,
  type NodeView,
  type RetiredNodeView,
} from "@tranche/contracts";
import {
  formatDuration,
  nodeChangeReasonText,
  nodeReasonWords,
  nodeStateMeaning,
  nodeStateText,
} from "@tranche/contracts/format";
import { api, loadConfig } from "./client";
import { parseDrainAt } from "./drain-time";
import { usageError } from "./options";
import { ago, table, type Out } from "./format";

/** "3 s ago", or "never" for a node never heard from. */
const heard = (iso: string | null) => (iso ? `${ago(iso)} ago` : "never");

type Gpu = NodeView["gpus"][number];

/** What an unhealthy node's agent reported (" (nvidia-smi failed: ...)"): shown nowhere else once it drains by hand. */
const agentSaid = (n: NodeView) => {
  const errors = healthErrors(n.healthDetails);
  return errors ? ` (${errors})` : "";
};

/** Seconds of protection a GPU's job has left (0 when interruptible or unallocated). */
const protectionLeft = (g: Gpu, now: number) =>
  g.charged !== false && g.protectedUntil ? Math.max(0, Math.round((Date.parse(g.protectedUntil) - now) / 1000)) : 0;

/** What holds a GPU, in words: free, or the job, its budget and owner and how long it stays protected. */
function holder(g: Gpu, now: number): string {
  if (g.jobId === null) return "free";
  const left = protectionLeft(g, now);
  const contract =
    g.charged === false
      ? "unallocated (yields at once)"
      : left > 0
        ? `protected for ${formatDuration(left)} more`
        : "interruptible";
  const squat = g.squattingSince ? `; likely squatting for ${ago(g.squattingSince, now)}` : "";
  return `job #${g.jobId} ${g.jobName ?? ""} (${g.budget}, ${g.user}), ${contract}${squat}`;
}

/** `tranche node show`'s GPU lines: a run of GPUs held alike (one job, or free) is one line, "0-7". */
function gpuLines(gpus: readonly Gpu[], now = Date.now()): string[] {
  const lines: string[] = [];
  for (let i = 0; i < gpus.length;) {
    let j = i;
    while (j + 1 < gpus.length && gpus[j + 1]!.jobId === gpus[i]!.jobId) j++;
    lines.push(`  ${i === j ? gpus[i]!.index : `${gpus[i]!.index}-${gpus[j]!.index}`}  ${holder(gpus[i]!, now)}`);
    i = j + 1;
  }
  return lines;
}

/** " (the last protection on it ends in 1 h 58 min)" for a draining node whose jobs are protected, else "". */
function lastProtection(n: NodeView, now: number): string {
  const left = Math.max(0, ...n.gpus.map((g) => protectionLeft(g, now)));
  return left > 0 ? ` (the last protection on it ends in ${formatDuration(left)})` : "";
}

/** "maintenance at Sat 12 Dec 02:00 (driver 560, planned by Olga)", in the reader's time zone; null when none is planned. */
export function planWords(n: NodeView, now = new Date()): string | null {
  if (n.drainAt === null) return null;
  const about = [n.drainReason, n.drainPlannedBy ? `planned by ${n.drainPlannedBy}` : null].filter(Boolean).join(", ");
  return `maintenance at ${maintenanceTimeWords(n.drainAt, now)}${about ? ` (${about})` : ""}`;
}

/** What an action did, in words: where the node stands now and what that means for its jobs. */
function actionText(n: NodeView, now = Date.now()): string {
  const plan = planWords(n, new Date(now));
  if (plan !== null && (n.state === "READY" || n.state === "CORDONED"))
    return `${n.name} is ${nodeStateText(n.state)}, with ${plan}: until then only work that can leave by then starts there, and then it drains.`;
  const jobs = new Set(n.gpus.flatMap((g) => (g.jobId === null ? [] : [g.jobId]))).size;
  const onIt = jobs === 1 ? "the job on it" : `the ${jobs} jobs on it`;
  const verb = (one: string, many: string) => `${onIt} ${jobs === 1 ? one : many}`;
  switch (n.state) {
    case "DRAINING":
      return jobs === 0
        ? `${n.name} is draining: nothing new starts there, and it holds no job, so it goes to repair at the next cycle.`
        : `${n.name} is draining: nothing new starts there, and ${verb("leaves as its contract allows", "leave as their contracts allow")}; then it goes to repair${lastProtection(n, now)}.`;
    case "CORDONED":
      return `${n.name} is cordoned: nothing new starts there${jobs === 0 ? "" : `; ${verb("keeps", "keep")} running`}.`;
    case "READY":
      return `${n.name} is ready: new work may start there.`;
    default:
      return `${n.name} is ${nodeStateMeaning(n.state)}.`;
  }
}

/** `--state draining,down`: the node states asked for; a word it does not know is an error naming the ones it does. */
export function parseNodeStates(raw: string): NodeState[] {
  const r = parseNodeStateWords(raw);
  if ("error" in r) throw usageError(`--state ${r.error}`);
  return r.states;
}

/** `tranche nodes` and `tranche node ...`: the nodes page's view and its operators' buttons. */
export function registerNodes(program: Command, out: Out): void {
  program
    .command("nodes")
    .description("the nodes of a cluster (or of all): state and why, GPUs in use, last heartbeat")
    .argument("[cluster]", "cluster name")
    .option(
      "--state <states>",
      `only nodes in these states, comma-separated (as sinfo -t): ${Object.keys(NODE_STATE_WORDS).join(", ")}`,
    )
    .option("--all", "retired nodes too (left out otherwise)")
    .action(async (cluster: string | undefined, opts: { state?: string; all?: boolean }) => {
      // Checked before any request: a typo answers at once and names the words it takes. The server filters.
      const states = opts.state === undefined ? null : parseNodeStates(opts.state);
      const query = new URLSearchParams({
        ...(cluster === undefined ? {} : { cluster }),
        ...(states ? { state: states.map((s) => s.toLowerCase()).join(",") } : {}),
        ...(opts.all ? { retired: "1" } : {}),
      });
      const q = query.size === 0 ? "" : `?${query}`;
      const nodes = (await api<{ nodes: NodeView[] }>(loadConfig(), "GET", `/nodes${q}`)).nodes;
      out({ nodes }, () =>
        nodes.length === 0 && states
          ? `No ${[...states].map((s) => nodeStateText(s)).join(" or ")} nodes${cluster ? ` in ${cluster}` : ""}.`
          : nodes.length === 0
            ? `No nodes${cluster ? ` in ${cluster}` : ""} yet: an agent enrolls its host with an enrollment token (tranche admin enrollment-token CLUSTER).`
            : table(
                ["NODE", "CLUSTER", "STATE", "GPUS IN USE", "UTILIZATION", "LAST HEARD", "WHY"],
                nodes.map((n) => [
                  n.name,
                  n.cluster,
                  nodeStateText(n.state) + (n.health === "UNHEALTHY" ? " (unhealthy)" : ""),
                  `${n.usedGpus} of ${n.gpuCount}`,
                  n.busyPercent === null ? "-" : `${Math.round(n.busyPercent)}%`,
                  heard(n.lastHeartbeatAt),
                  [n.state === "READY" ? null : nodeReasonWords(n, Date.now()), planWords(n)].filter(Boolean).join("; "),
                ]),
              ),
      );
    });

  const node = program.command("node").description("one node: show it, or change its state (operators)");
  node
    .command("show")
    .description("a node's state, its GPUs and the jobs on them, and its latest state changes")
    .argument("<node>", "node name")
    .action(async (name: string) => {
      const r = await api<{ node: NodeView; events: NodeEventView[] }>(loadConfig(), "GET", `/nodes/${encodeURIComponent(name)}`);
      const n = r.node;
      out(r, () =>
        [
          `${n.name} (cluster ${n.cluster}): ${nodeStateMeaning(n.state)}, for ${ago(n.stateChangedAt)}`,
          ...(n.state !== "READY" && nodeReasonWords(n, Date.now())
            ? [`  why: ${nodeReasonWords(n, Date.now())}${n.drainIsManual ? " (an operator's drain)" : ""}`]
            : []),
          ...(planWords(n) ? [`  planned: ${planWords(n)}`] : []),
          `  ${n.health === "HEALTHY" ? "healthy" : `unhealthy${agentSaid(n)}`}; last heard ${heard(n.lastHeartbeatAt)}${n.busyPercent === null ? "" : `; GPU utilization ${Math.round(n.busyPercent)}%`}${n.agentVersion ? `; agent ${n.agentVersion}` : ""}`,
          `GPUs (${n.usedGpus} of ${n.gpuCount} in use):`,
          ...gpuLines(n.gpus),
          ...(r.events.length === 0
            ? []
            : [
                "Latest changes:",
                ...r.events.map(
                  (e) =>
                    `  ${ago(e.at)} ago  ${e.from && e.from !== e.to ? `${nodeStateText(e.from)} -> ` : ""}${nodeStateText(e.to)}  ${nodeChangeReasonText(e.reason)}${e.by ? ` (by ${e.by})` : ""}`,
                ),
              ]),
        ].join("\n"),
      );
    });

  const actions: [word: string, description: string][] = [
    ["cordon", "stop new work starting on a ready node; its jobs keep running (operators)"],
    [
      "drain",
      "drain a node: nothing new starts there, its jobs leave as their contracts allow, then it goes to repair; with --at, at that time, and until then only work that can leave by then starts there (operators)",
    ],
    ["uncordon", "return a cordoned or draining node to ready (operators)"],
    ["repaired", "mark a node repaired: back to ready and healthy (operators)"],
  ];
  for (const [word, description] of actions) {
    const command = node
      .command(word)
      .description(description)
      .argument("<node>", "node name")
      .option("--reason <text>", "why (kept in the node's history and the audit log)");
    if (word === "drain")
      command.option(
        "--at <time>",
        'drain at this time, not now: "2026-12-12 02:00" in your time zone (TZ), as date -d reads it, or with its offset ("2026-12-12 02:00 +01:00", "... UTC")',
      );
    command.action(async (name: string, o: { reason?: string; at?: string }) => {
      // Read before any request: a time that cannot be read, or is read two ways, answers at once.
      const at = o.at === undefined ? undefined : parseDrainAt(o.at);
      const { node: n } = await api<{ node: NodeView }>(loadConfig(), "POST", `/nodes/${encodeURIComponent(name)}/${word}`, {
        ...(o.reason === undefined ? {} : { reason: o.reason }),
        ...(at === undefined ? {} : { at }),
      });
      out({ node: n }, () => actionText(n));
    });
  }
  node
    .command("cancel-drain")
    .description("cancel a node's planned drain (drain --at); it stays as it is (operators)")
    .argument("<node>", "node name")
    .action(async (name: string) => {
      const { node: n } = await api<{ node: NodeView }>(loadConfig(), "DELETE", `/nodes/${encodeURIComponent(name)}/drain`);
      out({ node: n }, () => `${n.name}'s planned drain is cancelled; ${actionText(n)}`);
    });
  node
    .command("retire")
    .description(
      "take an empty node out of service for good: its agent is refused, it leaves scheduling and the lists, its history is kept; waiting jobs that name it are counted, and the owners of those it leaves no node are told (operators)",
    )
    .argument("<node>", "node name")
    .option("--reason <text>", "why (kept in the node's history and the audit log)")
    .action(async (name: string, o: { reason?: string }) => {
      const r = await api<{ node: RetiredNodeView }>(
        loadConfig(),
        "POST",
        `/nodes/${encodeURIComponent(name)}/retire`,
        o.reason === undefined ? {} : { reason: o.reason },
      );
      out(r, () => retiredNodeSentence(r.node));
    });
}
