// The agent's command line and environment, checked and resolved in one place (no I/O but reading a
// token file), so a wrong option fails with one line naming it before anything starts.
import { existsSync, readFileSync, statSync } from "node:fs";
import { homedir, hostname } from "node:os";
import { isAbsolute, join } from "node:path";
import { parseArgs } from "node:util";
import { SESSION_HOST } from "@tranche/contracts";

export class OptionError extends Error {}

export interface AgentOptions {
  mode: "run" | "enroll-only" | "dry-run" | "help";
  server: string;
  stateDir: string;
  /** The node names this process runs: one host, or the fake nodes. */
  names: string[];
  /** Enrollment token per node name (absent: none was given for it). */
  tokens: Map<string, string>;
  /** Where the tokens came from, for the start line (never the tokens themselves). */
  tokenSource: string;
  fakeGpus: number | null;
  nvidiaSmi: string | undefined;
  stopJobsOnExit: boolean;
  longPoll: boolean;
  /** Job isolation (main.ts resolves them): a uid range "FROM-TO", or one account, or neither. */
  jobUidRange: string | undefined;
  jobUser: string | undefined;
  allowRootJobs: boolean;
  cgroups: boolean;
  /** --checkpoint-root or TRANCHE_CHECKPOINT_ROOT: an absolute folder every node mounts; undefined: none. */
  checkpointRoot: string | undefined;
  /** --session-host or TRANCHE_SESSION_HOST: where the control plane reaches this node's sessions (default: the host name). */
  sessionHost: string;
}

const OPTIONS = {
  server: { type: "string" },
  "state-dir": { type: "string" },
  "node-name": { type: "string" },
  "enrollment-token": { type: "string" },
  "enrollment-token-file": { type: "string" },
  "enroll-only": { type: "boolean" },
  "dry-run": { type: "boolean" },
  "fake-gpus": { type: "string" },
  "fake-nodes": { type: "string" },
  "name-prefix": { type: "string" },
  "nvidia-smi": { type: "string" },
  "stop-jobs-on-exit": { type: "boolean" },
  "no-long-poll": { type: "boolean" },
  "job-uid-range": { type: "string" },
  "job-user": { type: "string" },
  "allow-root-jobs": { type: "boolean" },
  "no-cgroups": { type: "boolean" },
  "checkpoint-root": { type: "string" },
  "session-host": { type: "string" },
  help: { type: "boolean" },
} as const;

function positiveInt(v: string | undefined, name: string): number | null {
  if (v === undefined) return null;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 4096)
    throw new OptionError(`${name} must be a whole number from 1 to 4096, got '${v}'`);
  return n;
}

/**
 * Tokens from a file: lines "TOKEN" (taken in node order) or "NODE_NAME TOKEN"; blank lines and lines
 * starting with # are skipped.
 */
function readTokenFile(file: string, what: string, named: Map<string, string>, ordered: string[]): void {
  if (!existsSync(file)) throw new OptionError(`${what} ${file} does not exist`);
  for (const line of readFileSync(file, "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"))) {
    const parts = line.split(/\s+/);
    if (parts.length >= 2) named.set(parts[0]!, parts[1]!);
    else ordered.push(parts[0]!);
  }
}

/**
 * Enrollment tokens, by node name when given so, else in node order. The flags win; without them the
 * environment is read: TRANCHE_ENROLLMENT_TOKEN (one token, or several separated by spaces or commas)
 * and TRANCHE_ENROLLMENT_TOKEN_FILE (a file as for --enrollment-token-file). Empty values count as unset
 * (compose passes `${VAR:-}`).
 */
function resolveTokens(
  flags: { token?: string; file?: string },
  env: NodeJS.ProcessEnv,
  names: string[],
): { tokens: Map<string, string>; source: string } {
  const named = new Map<string, string>();
  const ordered: string[] = [];
  let source: string;
  if (flags.token || flags.file) {
    if (flags.token) ordered.push(flags.token);
    if (flags.file) readTokenFile(flags.file, "--enrollment-token-file", named, ordered);
    source = [flags.token && "--enrollment-token", flags.file && "--enrollment-token-file"].filter(Boolean).join(" and ");
  } else {
    const token = env.TRANCHE_ENROLLMENT_TOKEN?.trim();
    const file = env.TRANCHE_ENROLLMENT_TOKEN_FILE?.trim();
    if (token) ordered.push(...token.split(/[\s,]+/).filter(Boolean));
    if (file) readTokenFile(file, "TRANCHE_ENROLLMENT_TOKEN_FILE", named, ordered);
    source =
      [token && "TRANCHE_ENROLLMENT_TOKEN", file && "TRANCHE_ENROLLMENT_TOKEN_FILE"].filter(Boolean).join(" and ") || "none";
  }
  const tokens = new Map<string, string>();
  let next = 0;
  for (const name of names) {
    const token = named.get(name) ?? ordered[next++];
    if (token) tokens.set(name, token);
  }
  return { tokens, source };
}

/**
 * The shared checkpoint root: the flag, else TRANCHE_CHECKPOINT_ROOT (empty counts as unset). It must
 * be absolute (every node resolves it alike) and already exist: a missing mount must not quietly become
 * a local folder, where a requeued job would not find its checkpoints.
 */
function checkpointRoot(flag: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const raw = flag ?? (env.TRANCHE_CHECKPOINT_ROOT?.trim() || undefined);
  if (raw === undefined) return undefined;
  const what = flag !== undefined ? "--checkpoint-root" : "TRANCHE_CHECKPOINT_ROOT";
  if (!isAbsolute(raw)) throw new OptionError(`${what} must be an absolute path (the same on every node), got '${raw}'`);
  if (!existsSync(raw) || !statSync(raw).isDirectory())
    throw new OptionError(`${what} ${raw} is not an existing folder: mount the shared checkpoint folder there first`);
  return raw.replace(/\/+$/, "") || "/";
}

function sessionHost(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const raw = flag ?? (env.TRANCHE_SESSION_HOST?.trim() || undefined);
  if (raw === undefined) return hostname();
  if (raw.length > 253 || !SESSION_HOST.test(raw))
    throw new OptionError(
      `${flag !== undefined ? "--session-host" : "TRANCHE_SESSION_HOST"} must be a host name or an IP address, got '${raw.slice(0, 80)}'`,
    );
  return raw;
}

export function parseAgentOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): AgentOptions {
  let args;
  try {
    args = parseArgs({ args: argv, options: OPTIONS, strict: true }).values;
  } catch (e) {
    throw new OptionError(`${(e as Error).message.split("\n")[0]} (--help lists the options)`);
  }
  const help = Boolean(args.help);
  const server = args.server?.replace(/\/$/, "") ?? "";
  if (!help && !/^https?:\/\/[^/]/.test(server))
    throw new OptionError("--server must be the control plane's URL, e.g. http://127.0.0.1:3000");
  if (args["enroll-only"] && args["dry-run"]) throw new OptionError("use --enroll-only or --dry-run, not both");
  const fakeGpus = positiveInt(args["fake-gpus"], "--fake-gpus");
  const fakeNodes = positiveInt(args["fake-nodes"], "--fake-nodes");
  if (fakeNodes !== null && fakeGpus === null) throw new OptionError("--fake-nodes needs --fake-gpus N");
  if (fakeNodes !== null && args["node-name"]) throw new OptionError("use --name-prefix with --fake-nodes, not --node-name");
  const names =
    fakeNodes !== null
      ? Array.from({ length: fakeNodes }, (_, i) => `${args["name-prefix"] ?? "fake-"}${i}`)
      : [args["node-name"] ?? hostname()];
  const { tokens, source } = help
    ? { tokens: new Map<string, string>(), source: "none" }
    : resolveTokens({ token: args["enrollment-token"], file: args["enrollment-token-file"] }, env, names);
  return {
    mode: help ? "help" : args["enroll-only"] ? "enroll-only" : args["dry-run"] ? "dry-run" : "run",
    server,
    stateDir: args["state-dir"] ?? join(homedir(), ".tranche-agent"),
    names,
    tokens,
    tokenSource: source,
    fakeGpus,
    nvidiaSmi: args["nvidia-smi"],
    stopJobsOnExit: Boolean(args["stop-jobs-on-exit"]),
    longPoll: !args["no-long-poll"],
    jobUidRange: args["job-uid-range"],
    jobUser: args["job-user"],
    allowRootJobs: Boolean(args["allow-root-jobs"]),
    cgroups: !args["no-cgroups"],
    checkpointRoot: checkpointRoot(args["checkpoint-root"], env),
    sessionHost: sessionHost(args["session-host"], env),
  };
}

/**
 * `--help`: the comment block that opens main.ts. Only that block: every `//` line of the file also
 * printed the code's own comments ("Job isolation: who jobs run as ...") under the options.
 */
export function usageFromSource(source: string): string {
  const lines = source.split("\n");
  const end = lines.findIndex((l) => !l.startsWith("//"));
  return (end < 0 ? lines : lines.slice(0, end)).map((l) => l.slice(3)).join("\n");
}
