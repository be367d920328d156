#!/usr/bin/env node
// `npm run typecheck`: tsc --noEmit over every workspace and the root scripts, as four programs instead of
// one per workspace. The workspaces import each other's sources, so twelve programs checked the shared
// sources (the Prisma client's types above all) up to nine times: 143 s of CPU against 87 s this way.
// Only the workspaces whose settings match share a program (tsconfig.workspaces.json); the web app (DOM,
// JSX), the pure core (no Node types: it must not use Node) and the root (its e2e files see the DOM) keep
// their own. One runs per core (tsc itself uses one).
import { spawn } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
// Longest first, so the two lanes end close together.
const programs = ["apps/web", "tsconfig.workspaces.json", "tsconfig.json", "packages/scheduler-core"];

// A workspace added later must not go unchecked: each is one of the programs or in the shared one.
const shared = JSON.parse(readFileSync(join(root, "tsconfig.workspaces.json"), "utf8")).include;
const missed = ["apps", "packages"]
  .flatMap((top) => readdirSync(join(root, top)).map((d) => `${top}/${d}`))
  .filter((w) => existsSync(join(root, w, "tsconfig.json")))
  .filter((w) => !programs.includes(w) && !shared.includes(`${w}/src`));
if (missed.length > 0) {
  console.error(`Not type-checked: ${missed.join(", ")}. Add its folders to tsconfig.workspaces.json, or its own program here.`);
  process.exit(1);
}

function check(project) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [tsc, "--noEmit", "-p", project], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", (e) => resolve({ project, ok: false, output: String(e) }));
    child.on("close", (code) => resolve({ project, ok: code === 0, output }));
  });
}

const queue = [...programs];
const failed = [];
async function lane() {
  for (let p = queue.shift(); p; p = queue.shift()) {
    const r = await check(p);
    // Whole, so two programs' errors never interleave.
    if (!r.ok) {
      failed.push(r.project);
      process.stdout.write(`\n--- tsc -p ${r.project}\n${r.output}`);
    }
  }
}
await Promise.all(Array.from({ length: Math.min(programs.length, availableParallelism()) }, lane));
if (failed.length > 0) {
  console.error(`\nType errors in: ${failed.join(", ")}`);
  process.exit(1);
}
