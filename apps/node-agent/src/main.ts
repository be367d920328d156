// The Tranche node agent: one per GPU host (or K fake nodes in one process for demos and tests).
//
//   node --import tsx apps/node-agent/src/main.ts --server http://127.0.0.1:3000 [options]
//
//   --server URL                  control plane (serves /api/agent/v1)               [required]
//   --enroll-only                 enroll (each node without a credential), store the credential, exit 0;
//                                 exit 1 naming the nodes that could not enroll
//   --dry-run                     check the options, print what would run, exit 0 (contacts nothing)
//   --state-dir DIR               credential, state.json and job logs (default ~/.tranche-agent)
//   --node-name NAME              this host's node name (default: the hostname)
//   --enrollment-token TOKEN      one-time token from an operator (first start only)
//   --enrollment-token-file FILE  lines "TOKEN" or "NODE_NAME TOKEN" (fake nodes take theirs by name, else in order)
//                                 Without these flags the agent reads TRANCHE_ENROLLMENT_TOKEN (one token, or
//                                 several separated by spaces or commas) and TRANCHE_ENROLLMENT_TOKEN_FILE.
//   --fake-gpus N                 pretend to have N GPUs instead of asking nvidia-smi
//   --fake-nodes K                run K fake nodes named <prefix>0 .. <prefix>K-1 (needs --fake-gpus)
//   --name-prefix P               prefix of fake node names (default "fake-")
//   --nvidia-smi PATH             the nvidia-smi binary (default: nvidia-smi on PATH)
//   --stop-jobs-on-exit           on SIGTERM/SIGINT also stop the jobs (demo clusters that go away with
//                                 `npm start`); without it job processes survive agent restarts
//   --no-long-poll                heartbeats only: do not hold POST /api/agent/v1/wait open between them
//                                 (with it, a START reaches the agent within about a second)
//   --job-uid-range FROM-TO       run each Tranche user's jobs as a uid of their own from this range
//                                 (e.g. 20000-29999; no accounts are created; needs root); with
//                                 --checkpoint-root the uids are claimed in DIR/.tranche-uids, the same on every node
//   --job-user NAME               run every job as this existing unprivileged account (needs root)
//   --allow-root-jobs             let jobs run as root when the agent runs as root (demos and tests only);
//                                 without it, a root agent refuses to start with neither option above
//   --no-cgroups                  do not put each job in its own cgroup v2 (process groups only)
//   --checkpoint-root DIR         a shared folder every node mounts at DIR (or TRANCHE_CHECKPOINT_ROOT): each job's
//                                 TRANCHE_CHECKPOINT_DIR is DIR/<job id>, the same on any node, so a requeued
//                                 job finds its checkpoints on another host (default: a folder beside the state)
//   --session-host HOST           where the control plane reaches this node's interactive sessions (or
//                                 TRANCHE_SESSION_HOST; default: the host name)
//   --help                        this text
//
// Jobs never see the agent's credential, state.json or other users' job folders (modes 700/600).
// Stopping the agent (SIGTERM/SIGINT) leaves job processes running; a restarted agent adopts them. A detached
// fence watch (fence-watch.ts) stops them if no agent is back before the heartbeat timeout, as the agent itself
// would without the control plane, so the control plane's requeue never makes a job run twice.
// An agent whose state folder was lost stops the jobs it finds still running from it before it reports (strays.ts).
import { chmodSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { NodeAgent } from "./agent";
import { startFenceWatch } from "./fence-watch";
import { closedToOthers } from "./job-path";
import { lookupUser, parseUidRange, prepareUidClaims, UID_CLAIM_DIR, type JobIdentity } from "./job-identity";
import { OptionError, parseAgentOptions, usageFromSource, type AgentOptions } from "./options";

function fail(message: string): never {
  console.error(`tranche-agent: ${message}`);
  process.exit(2);
}

let opts: AgentOptions;
try {
  opts = parseAgentOptions(process.argv.slice(2));
} catch (e) {
  if (e instanceof OptionError) fail(e.message);
  throw e;
}
if (opts.mode === "help") {
  console.log(usageFromSource(readFileSync(new URL(import.meta.url), "utf8")));
  process.exit(0);
}
const { server, stateDir, names, fakeGpus } = opts;
const summary = `${names.length} node${names.length === 1 ? "" : "s"} (${names[0]}${names.length > 1 ? ` .. ${names[names.length - 1]}` : ""}), ${fakeGpus !== null ? `${fakeGpus} fake GPUs each` : "GPUs from nvidia-smi"}, control plane ${server}`;
// Job isolation: who jobs run as (checked before a dry run ends, so a deployment's command line is too).
const asRoot = process.getuid?.() === 0;
let identity: JobIdentity = { kind: "agent" };
try {
  if (opts.jobUidRange && opts.jobUser) fail("give --job-uid-range or --job-user, not both");
  if (opts.jobUidRange)
    identity = {
      kind: "range",
      ...parseUidRange(opts.jobUidRange),
      mapFile: join(stateDir, "job-uids.json"),
      // A shared checkpoint root holds the claims, so a user's uid is the same on every node there.
      ...(opts.checkpointRoot ? { claimDir: join(opts.checkpointRoot, UID_CLAIM_DIR) } : {}),
    };
  else if (opts.jobUser) identity = { kind: "user", name: opts.jobUser, ids: lookupUser(opts.jobUser) };
} catch (e) {
  fail((e as Error).message);
}
if (identity.kind !== "agent" && !asRoot)
  fail(
    `${identity.kind === "range" ? "--job-uid-range" : "--job-user"} needs an agent running as root (it switches each job to its user)`,
  );
// --enroll-only runs no job, so it needs no answer to who jobs run as.
if (identity.kind === "agent" && asRoot && !opts.allowRootJobs && opts.mode !== "enroll-only")
  fail(
    "this agent runs as root, so its jobs would too (and could read every credential on this host): give --job-uid-range 20000-29999 (a uid per Tranche user) or --job-user NAME, or --allow-root-jobs to accept it (demos and tests)",
  );
const jobsRunAs =
  identity.kind === "range"
    ? `a uid per user from ${identity.from}-${identity.to}${identity.claimDir ? ` (claimed in ${identity.claimDir}, the same on every node)` : ""}`
    : identity.kind === "user"
      ? `${identity.name} (uid ${identity.ids.uid})`
      : asRoot
        ? "root (--allow-root-jobs)"
        : "this agent's user";
if (opts.mode === "dry-run") {
  console.log(`tranche-agent: dry run: would run ${summary}`);
  console.log(
    `  state folder ${stateDir}; enrollment tokens for ${opts.tokens.size} of ${names.length} (from ${opts.tokenSource}); jobs run as ${jobsRunAs}`,
  );
  process.exit(0);
}

mkdirSync(stateDir, { recursive: true });
if (identity.kind !== "agent") {
  // Jobs walk down to their own folders (execute only: they list nothing on the way).
  chmodSync(stateDir, 0o711);
  const blocked = closedToOthers(dirname(resolve(stateDir)));
  if (blocked)
    fail(
      `jobs run as other users and cannot enter ${blocked} on the way to --state-dir: run 'chmod o+x ${blocked}' or pick another --state-dir`,
    );
}

const log = (line: string) => console.log(line);
// With a shared checkpoint root: a claims folder this agent cannot trust or write stops it here.
try {
  if (opts.mode !== "enroll-only") prepareUidClaims(identity, log);
} catch (e) {
  fail((e as Error).message);
}
const agents = names.map(
  (name) =>
    new NodeAgent({
      server,
      nodeName: name,
      dir: join(stateDir, name),
      enrollmentToken: opts.tokens.get(name) ?? null,
      fakeGpus,
      nvidiaSmi: opts.nvidiaSmi,
      longPoll: opts.longPoll,
      identity,
      cgroups: opts.cgroups,
      ...(opts.checkpointRoot ? { checkpointRoot: opts.checkpointRoot } : {}),
      sessionHost: opts.sessionHost,
      log,
    }),
);

if (opts.mode === "enroll-only") {
  const results = await Promise.all(agents.map((a) => a.enrollOnly()));
  const failed = names.filter((_, i) => !results[i]);
  if (failed.length) {
    console.error(`tranche-agent: not enrolled: ${failed.join(", ")}`);
    process.exit(1);
  }
  log(`tranche-agent: enrolled ${names.length} node${names.length === 1 ? "" : "s"}; credentials in ${stateDir}`);
  process.exit(0);
}

log(`tranche-agent: ${summary}; jobs run as ${jobsRunAs}`);
// Spread the fake nodes' heartbeats over the first second.
agents.forEach((a, i) => void a.start(Math.floor((i * 1000) / agents.length)));
// Fences the jobs this process leaves running if it stops, is killed or crashes (R9; fence-watch.ts).
startFenceWatch(
  agents.map((a) => a.watchedNode),
  log,
);

// A closed stdout (the supervisor went away) must not crash the agent before it has stopped its jobs.
for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});
// Last resort: every job step is guarded in the runner, but one node's unexpected error must not end
// the other nodes of this process (and their jobs' supervision) — say it and go on.
process.on("uncaughtException", (e) => log(`tranche-agent: unexpected error, carrying on: ${e.stack ?? e.message}`));
process.on("unhandledRejection", (e) => log(`tranche-agent: unexpected error, carrying on: ${String(e)}`));

const stopJobsOnExit = opts.stopJobsOnExit;
let stopping = false;
function shutdown(why: string): void {
  if (stopping) return;
  stopping = true;
  for (const a of agents) a.stop();
  if (!stopJobsOnExit) {
    log(`tranche-agent: stopping (${why}); job processes keep running and will be adopted on restart`);
    process.exit(0);
  }
  // Stop the jobs first, report their exits while the control plane may still be up (at most 3 s;
  // else the next start reports them), log after: the log may go nowhere.
  const finalReport = (a: NodeAgent) =>
    Promise.race([a.beat(true).catch(() => null), new Promise((r) => setTimeout(r, 3000).unref())]);
  void Promise.all(agents.map((a) => a.stopAllJobs(3000).then(() => finalReport(a)))).then(() => {
    log(
      `tranche-agent: stopped (${why}) with --stop-jobs-on-exit: every job was sent SIGTERM, SIGKILL after 3 s, and reported stopped by the shutdown (requeued, not failed)`,
    );
    process.exit(0);
  });
}
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(sig, () => shutdown(sig));
// With --stop-jobs-on-exit the agent belongs to a supervisor (npm start): if that dies, so do we.
if (stopJobsOnExit) {
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && shutdown("parent process exited"), 1000).unref();
}
