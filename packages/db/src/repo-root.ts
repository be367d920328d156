import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

// The repository root is the nearest folder above this file holding turbo.json. Data folders and the
// Prisma CLI are resolved from here so every process agrees whatever its working directory.
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "turbo.json"))) return dir;
    const up = resolve(dir, "..");
    if (up === dir) throw new Error("Cannot find the Tranche repository root (no turbo.json above " + dir + ")");
    dir = up;
  }
}
