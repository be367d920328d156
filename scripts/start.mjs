#!/usr/bin/env node
// `npm start`: from a fresh clone with only Node 20+, install what is missing, build, then hand over to
// the platform supervisor (scripts/platform.ts), which starts the database, migrates, seeds and runs
// every process. Plain Node on purpose: nothing here may need a dependency.
import { spawnSync, spawn } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", TURBO_TELEMETRY_DISABLED: "1" };
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  console.error(`Tranche needs Node.js 20.19 or newer; this is ${process.versions.node}.`);
  process.exit(1);
}

function run(cmd, args, what) {
  const t = Date.now();
  process.stdout.write(`• ${what}… `);
  const r = spawnSync(cmd, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
  if (r.status !== 0) {
    console.log("failed");
    console.error((r.stdout ?? "") + (r.stderr ?? ""));
    process.exit(r.status ?? 1);
  }
  console.log(`done in ${((Date.now() - t) / 1000).toFixed(1)} s`);
}

// A start already running from this checkout: say so before installing or building, which would rewrite
// the files its web app serves (the supervisor refuses too: scripts/platform/leftovers.ts).
const runningSupervisor = (() => {
  try {
    const file = join(process.env.TRANCHE_RUN_DIR ?? join(root, ".data", "run"), "platform.json");
    const pid = JSON.parse(readFileSync(file, "utf8")).supervisor;
    return pid > 0 && alive(pid) && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(root) ? pid : 0;
  } catch {
    return 0;
  }
})();
if (runningSupervisor) {
  console.error(
    `tranche: Tranche is already running from this checkout (npm start, pid ${runningSupervisor}); stop it first (Ctrl-C in its terminal, or kill -INT ${runningSupervisor}), or start another one from another clone.`,
  );
  process.exit(1);
}

const lock = join(root, "package-lock.json");
const installed = join(root, "node_modules", ".package-lock.json");
if (!existsSync(installed) || statSync(lock).mtimeMs > statSync(installed).mtimeMs) {
  run("npm", ["ci", "--no-audit", "--no-fund"], "installing dependencies (npm ci)");
}
if (!existsSync(join(root, "packages", "db", "src", "generated", "client.ts"))) {
  run("npx", ["prisma", "generate"], "generating the Prisma client");
}
// turbo skips the build when nothing changed since the last one (cached in .turbo).
run("npx", ["turbo", "run", "build", "--output-logs=errors-only"], "building");

const child = spawn(process.execPath, ["--import", "tsx", join(root, "scripts", "platform.ts"), ...process.argv.slice(2)], {
  cwd: root,
  env,
  stdio: "inherit",
});
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
// When `npm start` is killed outright, npm's `sh -c` stays our parent, so watch npm (our grandparent) too,
// and pass a SIGTERM on so nothing lingers.
const parent = process.ppid;
const grandparent = parentOf(parent);
setInterval(() => {
  if (process.ppid !== parent || (grandparent > 1 && !alive(grandparent))) child.kill("SIGTERM");
}, 1000).unref();

function parentOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return 0; // no /proc: the parent watch alone
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === "EPERM";
  }
}
