import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The public traces ship with the repository in `<repo root>/data/traces` (see its README for their
 * provenance and licences). `TRANCHE_TRACES_DIR` overrides it. The repo root is the nearest folder above this file whose
 * package.json declares workspaces.
 */
export function defaultTracesDir(): string {
  const env = process.env.TRANCHE_TRACES_DIR;
  if (env) return resolve(env);
  return join(findRepoRoot(dirname(fileURLToPath(import.meta.url))), "data", "traces");
}

export function findRepoRoot(start: string): string {
  let dir = resolve(start);
  for (;;) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg)) {
      try {
        const json = JSON.parse(readFileSync(pkg, "utf8")) as { workspaces?: unknown };
        if (json.workspaces) return dir;
      } catch {
        // not ours; keep walking up
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no repository root (package.json with workspaces) above ${start}`);
    dir = parent;
  }
}
