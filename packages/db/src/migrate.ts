import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { repoRoot } from "./repo-root";

/** Run a Prisma CLI command against `url` with the project's prisma.config.ts; resolves with its output. */
export function prismaCli(args: string[], url: string): Promise<{ code: number; output: string }> {
  const require = createRequire(import.meta.url);
  const cli = join(require.resolve("prisma/package.json"), "..", "build", "index.js");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: repoRoot(),
      env: { ...process.env, DATABASE_URL: url, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

/** Apply committed migrations (never generates new ones: that is a developer's `prisma migrate dev`). */
export async function migrateDeploy(url: string): Promise<void> {
  const { code, output } = await prismaCli(["migrate", "deploy"], url);
  if (code !== 0) throw new Error(`prisma migrate deploy failed:\n${output}`);
}
