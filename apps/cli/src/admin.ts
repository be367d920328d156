// `tranche admin ...`: the administration routes of /api/v1 (tree, members, managers, users, clusters,
// enrollment tokens, node credentials, audit log). The server checks roles and input; the messages
// printed are the server's.
import type { Command } from "commander";
import {
  formatExactDuration,
  parsePercentToPpm,
  removedMemberText,
  revokedNodeSentence,
  type RevokedNodeView,
  type SharePreview,
} from "@tranche/contracts";
import { enrollmentTokenStatusText, shareUsedCell } from "@tranche/contracts/format";
import {
  AUDIT_ACTIONS,
  auditActionsMatching,
  auditActionText,
  auditDetailsText,
  auditTargetText,
} from "@tranche/contracts/audit";
import { api, CliError, loadConfig } from "./client";
import { ago, printable, table, validity, when, type Out } from "./format";
import { countOption, usageError } from "./options";
import { registerLabImport } from "./lab-file";

const enc = (path: string) => path.split("/").map(encodeURIComponent).join("/");

/** "0.3", "30%" -> 0.3: a share of the parent's allocation. */
function parseShare(text: string): number {
  const s = text.trim();
  if (s.endsWith("%")) {
    const ppm = parsePercentToPpm(s);
    if (ppm === null) throw usageError(`--share '${text}' is not a percentage such as 30%`);
    return ppm / 1_000_000;
  }
  const n = Number(s);
  if (!Number.isFinite(n)) throw usageError(`--share '${text}' is not a fraction such as 0.3 or a percentage such as 30%`);
  return n;
}

const placeText = (at: number | null, starts: boolean) => (at === null ? "-" : `${at}${starts ? ", starts" : ""}`);

/**
 * The control plane's address for the agent command: the one this CLI signed in to, unless that is this
 * machine's own loopback, which a GPU host cannot reach (then the placeholder, to fill in).
 */
export function agentServer(url: string): string {
  try {
    const host = new URL(url).hostname;
    if (host === "localhost" || host === "[::1]" || host.startsWith("127.")) return "<url the GPU hosts reach>";
  } catch {
    return "<url>";
  }
  return url.replace(/\/+$/, "");
}

/** The what-if of a share, as the budgets page shows it. */
function previewText(p: SharePreview): string {
  const pct = `${Number((p.share * 100).toFixed(4))}%`;
  const head = `What-if on ${p.cluster}, nothing changed: ${p.path} at ${pct} of its parent's allocation.`;
  if (!p.valid) return `${head}\n${p.problem}`;
  const lines = [
    head,
    `The scheduler's next cycle (as if the share had held over the whole window) would reorder ${p.moved} of ${p.pendingCount} pending jobs.`,
    "",
    table(
      ["tree node", "has used, now", "with the change"],
      p.ratios.map((x) => [x.path, shareUsedCell(x.before), shareUsedCell(x.after)]),
    ),
  ];
  if (p.order.length > 0)
    lines.push(
      "",
      table(
        ["job", "budget", "GPUs", "place now", "with the change"],
        p.order.map((j) => [
          `#${j.jobId}`,
          j.budget,
          j.gpus,
          placeText(j.before, j.startsBefore),
          placeText(j.after, j.startsAfter),
        ]),
      ),
    );
  return lines.join("\n");
}

interface ClusterPolicy {
  name: string;
  squattingUnprotectAfter: number | null;
  debugReservePercent: number;
  debugMaxGpusPerUser: number;
  debugVictimMaxGpuHours: number;
}

/** A number option of `cluster policy`: 'default' sends null (the scheduler's default); text that is no number is refused. */
function policyNumber(field: string, flag: string, text: string | undefined, percent = false): Record<string, number | null> {
  if (text === undefined) return {};
  const t = percent ? text.trim().replace(/%$/, "") : text.trim();
  if (t === "default") return { [field]: null };
  const n = Number(t);
  if (t === "" || !Number.isFinite(n))
    throw usageError(`${flag} '${text}' is not a number${percent ? " (of percent, e.g. 2%)" : ""} or 'default'`);
  return { [field]: n };
}

interface Person {
  email: string;
  name: string;
}

const personText = (p: Person) => (p.name ? `${p.name} <${p.email}>` : p.email);
/**
 * A node's own managers are listed; those of the nodes above it manage it as well, so "none" under a
 * team its division's manager runs (the very manager asking) read as if nobody did.
 */
const noManagersText = (path: string) =>
  path.includes("/") ? "none named on it (a manager of a node above it manages it too)" : "none";

interface UserRow {
  id: string;
  email: string;
  name: string;
  role: string;
  disabled: boolean;
  hasPassword: boolean;
}

export function registerAdmin(program: Command, out: Out): void {
  const admin = program.command("admin").description("administration: the budget tree, users, clusters, enrollment, audit");
  const call = <T>(method: string, path: string, body?: unknown) => api<T>(loadConfig(), method, path, body);

  registerLabImport(admin, out);

  const cluster = admin.command("cluster").description("clusters");
  cluster
    .command("create")
    .description("create a cluster (admins)")
    .argument("<name>", "cluster name, e.g. h100")
    .requiredOption("--gpu-type <type>", "GPU model, e.g. H100")
    .option("--max-min-runtime <duration>", "protection cap: the longest minRuntime a job may ask (default 8h)")
    .action(async (name: string, o: { gpuType: string; maxMinRuntime?: string }) => {
      const r = await call<{ cluster: { name: string; gpuType: string; maxMinRuntime: number } }>("POST", "/clusters", {
        name,
        gpuType: o.gpuType,
        ...(o.maxMinRuntime ? { maxMinRuntime: o.maxMinRuntime } : {}),
      });
      out(
        r,
        () =>
          `Created cluster ${r.cluster.name} (${r.cluster.gpuType}, protection cap ${formatExactDuration(r.cluster.maxMinRuntime)}).`,
      );
    });

  cluster
    .command("policy")
    .description(
      "show a cluster's policy, or change it (admins): the squatting policy and the debug lane's settings; 'default' restores one",
    )
    .argument("<name>", "cluster name")
    .option(
      "--squatting-unprotect-after <duration>",
      "a job flagged as likely squatting this long loses its protection, e.g. 4h; 'off'",
    )
    .option("--debug-reserve <percent>", "percent of the GPUs other work leaves free for the debug lane, e.g. 2%")
    .option("--debug-gpus-per-user <gpus>", "the GPUs one user may hold in the debug lane")
    .option("--debug-victim-max-gpu-hours <n>", "the most work a debug job may make one preempted run lose, GPU-hours")
    .action(
      async (
        name: string,
        o: {
          squattingUnprotectAfter?: string;
          debugReserve?: string;
          debugGpusPerUser?: string;
          debugVictimMaxGpuHours?: string;
        },
      ) => {
        const body = {
          ...(o.squattingUnprotectAfter !== undefined
            ? { squattingUnprotectAfter: o.squattingUnprotectAfter === "off" ? null : o.squattingUnprotectAfter }
            : {}),
          ...policyNumber("debugReservePercent", "--debug-reserve", o.debugReserve, true),
          ...policyNumber("debugMaxGpusPerUser", "--debug-gpus-per-user", o.debugGpusPerUser),
          ...policyNumber("debugVictimMaxGpuHours", "--debug-victim-max-gpu-hours", o.debugVictimMaxGpuHours),
        };
        let policy: ClusterPolicy;
        if (Object.keys(body).length === 0) {
          const { clusters } = await call<{ clusters: { name: string; policy: ClusterPolicy }[] }>("GET", "/clusters");
          const found = clusters.find((c) => c.name === name);
          if (!found) throw new CliError(`There is no cluster '${name}'`);
          policy = found.policy;
        } else policy = (await call<{ cluster: ClusterPolicy }>("PATCH", `/clusters/${encodeURIComponent(name)}`, body)).cluster;
        out(policy, () =>
          [
            `Cluster ${policy.name}:`,
            `  squatting: ${policy.squattingUnprotectAfter === null ? "flag only" : `protection ends after ${formatExactDuration(policy.squattingUnprotectAfter)} flagged`}`,
            `  debug lane: ${policy.debugReservePercent}% of the GPUs kept free, ${policy.debugMaxGpusPerUser} GPUs per user, victims losing at most ${policy.debugVictimMaxGpuHours} GPU-hours`,
          ].join("\n"),
        );
      },
    );

  const budget = admin
    .command("budget")
    .description("the budget tree (budgets are its leaves); managers may act within the subtree they manage");
  budget
    .command("create")
    .description("create a tree node: tranche admin budget create lab/vision/video (admins; managers below a node they manage)")
    .argument("<path>", "the new node's path; its parent must exist")
    .action(async (path: string) => {
      const parts = path.replace(/^\/+|\/+$/g, "").split("/");
      const name = parts.pop()!;
      const r = await call<{ node: { path: string } }>("POST", "/budgets", {
        ...(parts.length ? { parent: parts.join("/") } : {}),
        name,
      });
      out(r, () => `Created ${r.node.path}.`);
    });
  budget
    .command("rename")
    .description("rename a tree node (admins; managers strictly inside their subtree, not the node they manage)")
    .argument("<path>")
    .argument("<new-name>")
    .action(async (path: string, name: string) => {
      const r = await call<{ node: { path: string } }>("PATCH", `/budgets/${enc(path)}`, { name });
      out(r, () => `Renamed ${path} to ${r.node.path}.`);
    });
  budget
    .command("move")
    .description("move a tree node with its subtree under another parent (admins; managers within their subtree)")
    .argument("<path>")
    .argument("<new-parent>")
    .action(async (path: string, parent: string) => {
      const r = await call<{ node: { path: string } }>("PATCH", `/budgets/${enc(path)}`, { parent });
      out(r, () => `Moved ${path} to ${r.node.path}.`);
    });
  budget
    .command("archive")
    .description(
      "archive a tree node without children or pending and running jobs (admins; managers strictly inside their subtree)",
    )
    .argument("<path>")
    .action(async (path: string) => {
      const r = await call<{ node: { path: string } }>("DELETE", `/budgets/${enc(path)}`);
      out(r, () => `Archived ${r.node.path}.`);
    });
  budget
    .command("allocate")
    .description("set a node's share of its parent's allocation on a cluster (managers in their subtree, admins)")
    .argument("<path>")
    .requiredOption("--cluster <name>", "cluster")
    .requiredOption("--share <share>", "a fraction (0.3) or percentage (30%) of the parent's allocation")
    .option("--note <text>", "why (kept in the allocation history)")
    .option("--what-if", "preview what the share would change in the queue, and change nothing")
    .action(async (path: string, o: { cluster: string; share: string; note?: string; whatIf?: boolean }) => {
      if (o.whatIf) {
        const r = await call<{ preview: SharePreview }>("POST", `/budgets/${enc(path)}/allocation/what-if`, {
          cluster: o.cluster,
          share: parseShare(o.share),
        });
        out(r, () => previewText(r.preview));
        // A share the change itself would refuse: the preview says why, and the exit status says no.
        if (!r.preview.valid) process.exitCode = 1;
        return;
      }
      const r = await call<{ allocation: { path: string; cluster: string; share: number; changed: boolean } }>(
        "PUT",
        `/budgets/${enc(path)}/allocation`,
        { cluster: o.cluster, share: parseShare(o.share), ...(o.note ? { note: o.note } : {}) },
      );
      const a = r.allocation;
      out(
        r,
        () =>
          `${a.path} has ${Number((a.share * 100).toFixed(4))}% of its parent's allocation on ${a.cluster}${a.changed ? "" : " (unchanged)"}.`,
      );
    });
  budget
    .command("add-member")
    .description("let a user charge a budget (admins; managers inside their subtree)")
    .argument("<path>")
    .argument("<email>")
    .action(async (path: string, email: string) => {
      const r = await call("POST", `/budgets/${enc(path)}/members`, { email });
      out(r, () => `${email} may now charge ${path}.`);
    });
  budget
    .command("add-manager")
    .description("make a manager manage a subtree (admins)")
    .argument("<path>")
    .argument("<email>")
    .action(async (path: string, email: string) => {
      const r = await call("POST", `/budgets/${enc(path)}/managers`, { email });
      out(r, () => `${email} now manages ${path}.`);
    });
  budget
    .command("people")
    .description("who may charge a node's budgets and who manages it (admins; managers inside their subtree)")
    .argument("<path>")
    .action(async (path: string) => {
      const [m, g] = await Promise.all([
        call<{ path: string; members: Person[] }>("GET", `/budgets/${enc(path)}/members`),
        call<{ path: string; managers: Person[] }>("GET", `/budgets/${enc(path)}/managers`),
      ]);
      out({ path: m.path, members: m.members, managers: g.managers }, () =>
        [
          `${m.path}`,
          `  members: ${m.members.length === 0 ? "none" : m.members.map(personText).join(", ")}`,
          `  managers: ${g.managers.length > 0 ? g.managers.map(personText).join(", ") : noManagersText(m.path)}`,
        ].join("\n"),
      );
    });
  budget
    .command("remove-member")
    .description("stop a user charging a budget (admins; managers inside their subtree)")
    .argument("<path>")
    .argument("<email>")
    .action(async (path: string, email: string) => {
      const r = await call<{ member: { jobsLeft: number } }>(
        "DELETE",
        `/budgets/${enc(path)}/members?email=${encodeURIComponent(email)}`,
      );
      out(r, () => removedMemberText(email, path, r.member.jobsLeft));
    });
  budget
    .command("remove-manager")
    .description("stop a manager managing a subtree (admins)")
    .argument("<path>")
    .argument("<email>")
    .action(async (path: string, email: string) => {
      const r = await call("DELETE", `/budgets/${enc(path)}/managers?email=${encodeURIComponent(email)}`);
      out(r, () => `${email} no longer manages ${path}.`);
    });

  const user = admin.command("user").description("users (admins)");
  /** A user's id from an id or an e-mail (the routes take ids; people type e-mails). */
  const userId = async (who: string): Promise<string> => {
    if (!who.includes("@")) return who;
    const { users } = await call<{ users: UserRow[] }>("GET", "/users");
    const found = users.find((u) => u.email === who.toLowerCase());
    if (!found) throw new CliError(`There is no user '${who}'`);
    return found.id;
  };
  user
    .command("create")
    .description("create a user; prints a one-time set-password link to hand them")
    .requiredOption("--email <email>")
    .requiredOption("--name <name>")
    .option("--role <role>", "RESEARCHER, MANAGER, OPERATOR or ADMIN", "RESEARCHER")
    .action(async (o: { email: string; name: string; role: string }) => {
      const r = await call<{ user: UserRow; setPasswordUrl: string; expiresAt: string }>("POST", "/users", {
        email: o.email,
        name: o.name,
        role: o.role.toUpperCase(),
      });
      out(
        r,
        () =>
          `Created ${r.user.name} <${r.user.email}> (${r.user.role.toLowerCase()}).\nHand them this one-time link to choose a password (${validity(r.expiresAt)}):\n${r.setPasswordUrl}`,
      );
    });
  user
    .command("ls")
    .description("every user")
    .action(async () => {
      const r = await call<{ users: UserRow[] }>("GET", "/users");
      out(r, () =>
        table(
          ["ID", "EMAIL", "NAME", "ROLE", "STATE"],
          r.users.map((u) => [
            u.id,
            u.email,
            u.name,
            u.role,
            u.disabled ? "disabled" : u.hasPassword ? "active" : "no password yet",
          ]),
        ),
      );
    });
  user
    .command("set")
    .description("change a user's role or name, or disable/enable them (a disabled user's tokens and sessions stop at once)")
    .argument("<user>", "user id or e-mail")
    .option("--role <role>", "RESEARCHER, MANAGER, OPERATOR or ADMIN")
    .option("--name <name>")
    .option("--disable", "disable the user")
    .option("--enable", "enable a disabled user")
    .action(async (who: string, o: { role?: string; name?: string; disable?: boolean; enable?: boolean }) => {
      if (o.disable && o.enable) throw usageError("give --disable or --enable, not both");
      const id = await userId(who);
      const body = {
        ...(o.role ? { role: o.role.toUpperCase() } : {}),
        ...(o.name ? { name: o.name } : {}),
        ...(o.disable ? { disabled: true } : o.enable ? { disabled: false } : {}),
      };
      const r = await call<{ user: UserRow }>("PATCH", `/users/${encodeURIComponent(id)}`, body);
      out(r, () => `${r.user.email}: ${r.user.role.toLowerCase()}, ${r.user.disabled ? "disabled" : "active"}.`);
    });

  user
    .command("password-link")
    .description("a new one-time link for a user to choose a password (their earlier unused link ends)")
    .argument("<user>", "user id or e-mail")
    .action(async (who: string) => {
      const r = await call<{ setPasswordUrl: string; expiresAt: string }>(
        "POST",
        `/users/${encodeURIComponent(await userId(who))}/password-link`,
      );
      out(r, () => `Hand ${who} this one-time link to choose a password (${validity(r.expiresAt)}):\n${r.setPasswordUrl}`);
    });

  admin
    .command("enrollment-token")
    .description("issue a one-time enrollment token for a new host of a cluster (operators); shown once")
    .argument("<cluster>")
    .option("--expires-in <duration>", "how long it stays valid (default 1h)")
    .option("--node <name>", "only this host name may use it")
    .action(async (clusterName: string, o: { expiresIn?: string; node?: string }) => {
      const r = await call<{ token: string; expiresAt: string }>(
        "POST",
        `/clusters/${encodeURIComponent(clusterName)}/enrollment-tokens`,
        {
          ...(o.expiresIn ? { expiresIn: o.expiresIn } : {}),
          ...(o.node ? { nodeName: o.node } : {}),
        },
      );
      out(
        r,
        () =>
          `Enrollment token for ${clusterName} (shown only now, ${validity(r.expiresAt)}):\n${r.token}\nOn the GPU host, in a clone of the same release (README, "Run it for your lab"):\n  node --import tsx apps/node-agent/src/main.ts --server ${agentServer(loadConfig().url)} --enrollment-token ${r.token} --state-dir /var/lib/tranche-agent --job-uid-range 20000-29999`,
      );
    });
  admin
    .command("enrollment-tokens")
    .description("a cluster's enrollment tokens: unused, used (by which host) or expired (operators)")
    .argument("<cluster>")
    .action(async (clusterName: string) => {
      const r = await call<{
        tokens: {
          id: string;
          status: string;
          nodeName: string | null;
          createdAt: string;
          expiresAt: string;
          createdBy: string | null;
        }[];
      }>("GET", `/clusters/${encodeURIComponent(clusterName)}/enrollment-tokens`);
      out(r, () =>
        r.tokens.length === 0
          ? `No enrollment tokens for ${clusterName}.`
          : table(
              ["STATUS", "HOST", "ISSUED", "BY"],
              r.tokens.map((t) => [
                enrollmentTokenStatusText(t.status),
                t.nodeName ?? "-",
                `${ago(t.createdAt)} ago`,
                t.createdBy ?? "-",
              ]),
            ),
      );
    });
  admin
    .command("revoke-node")
    .description("revoke a node's credential: its agent is refused until it enrolls again (operators)")
    .argument("<node>")
    .option("--reason <text>", "why (kept in the node's history and the audit log)")
    .action(async (node: string, o: { reason?: string }) => {
      const r = await call<{ node: RevokedNodeView }>(
        "POST",
        `/nodes/${encodeURIComponent(node)}/revoke-credential`,
        o.reason === undefined ? {} : { reason: o.reason },
      );
      out(r, () => revokedNodeSentence(r.node));
    });
  admin
    .command("audit")
    .description(
      "the audit log, newest first (admins: all of it; operators: hosts and clusters; managers: the subtrees they manage)",
    )
    .option("--actor <email>", "who acted (or part of the e-mail)")
    .option("--action <words>", 'what was done, in the words the log shows, e.g. "drained a node" (or part: "node")')
    .option("--target <target>", "target name: a tree path, an e-mail, a cluster")
    .option("--since <time>", "ISO time, e.g. 2026-12-01T10:00:00Z")
    .option("--until <time>", "ISO time")
    .option("--limit <n>", "at most this many", "50")
    .option("--before <id>", "only entries older than this one: the next page (--json shows each entry's id)")
    .action(async (o: Record<string, string | undefined>) => {
      const q = new URLSearchParams({ limit: String(countOption("--limit", o.limit!)) });
      for (const k of ["actor", "target", "since", "until", "before"]) if (o[k]) q.set(k, o[k]!);
      if (o.action) q.set("action", auditActionFilter(o.action));
      const r = await call<{ entries: AuditEntryLine[] }>("GET", `/audit?${q}`);
      out(r, () => auditText(r.entries));
    });
}

interface AuditEntryLine {
  at: string;
  actor: { email: string } | null;
  action: string;
  target: string;
  details: Record<string, unknown>;
}

/**
 * What `--action` asks the API for (an action's code, or a code's prefix): the words the log shows, whole
 * or in part, as the web's Action filter offers them; a code as scripts pass it still works.
 */
export function auditActionFilter(given: string): string {
  const matches = auditActionsMatching(given);
  if (matches.length === 1) return matches[0]!.code;
  const t = given.trim();
  // A code's prefix ("user."), or a code the table does not name yet: the API matches it as it is.
  if (matches.every((m) => m.code.startsWith(t)) && /^[a-z][\w.-]*$/i.test(t) && /[.-]/.test(t)) return t;
  if (matches.length > 1)
    throw usageError(`--action '${t}' could mean: ${matches.map((m) => m.words).join("; ")}. Give the words of one.`);
  throw usageError(`No action reads '${t}'. The actions: ${AUDIT_ACTIONS.map((a) => a.words).join("; ")}.`);
}

/** `tranche admin audit`'s table: when (local time), who, the action and its target in words, and the details as the web shows them. */
export function auditText(entries: readonly AuditEntryLine[], timeZone?: string, width?: number): string {
  if (entries.length === 0) return "No audit entries match.";
  return table(
    ["WHEN", "WHO", "ACTION", "ON", "DETAILS"],
    entries.map((e) => [
      when(e.at, timeZone),
      e.actor?.email ?? "the system",
      auditActionText(e.action),
      printable(auditTargetText(e.target)),
      printable(auditDetailsText(e.details, e.target)) || "-",
    ]),
    width,
  );
}
