// What the CLI integration tests share: a demo world, API tokens, the REST handler served over HTTP, a
// temp folder, and a runner for the real CLI process. Each test keeps its own specific setup.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import { createApiToken } from "@tranche/domain";
import { makeWorld, serveRest, type World } from "./fixtures";

export const CLI_BIN = resolve(import.meta.dirname, "../../../apps/cli/bin/tranche.mjs");
const CLI_MAIN = resolve(import.meta.dirname, "../../../apps/cli/src/main.ts");

/**
 * The CLI's sources as one file, for a stack's many CLI processes: each then starts in about 0.2 s
 * instead of the bin's 0.8 s, most of which is tsx compiling the sources on every start. Same code, same
 * real process; the bin itself is what the log-following test and the e2e journeys run.
 */
async function bundleCli(dir: string): Promise<string> {
  const outfile = join(dir, "tranche.cjs");
  await build({ entryPoints: [CLI_MAIN], bundle: true, platform: "node", format: "cjs", outfile, logLevel: "warning" });
  return outfile;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A CLI process's environment: this server and token, and a config file that does not exist, so the
 * developer's own saved login cannot leak into a test. */
export function cliEnv(url: string, token: string, config: string): NodeJS.ProcessEnv {
  return { ...process.env, TRANCHE_URL: url, TRANCHE_TOKEN: token, TRANCHE_CONFIG: config };
}

type Who = keyof World["users"];

export interface CliStack<U extends Who> {
  w: World;
  url: string;
  dir: string;
  tokens: Record<U, string>;
  /** Runs the CLI to its end as `as` (the first of the stack's users unless said). */
  cli: (args: string[], as?: U) => Promise<CliResult>;
  /** Closes the server, removes the temp folder and drops the database. */
  stop: () => Promise<void>;
}

/** Starts the stack on a fresh database named by `label`, with one API token for each of `users`. */
export async function startCliStack<U extends Who = "ada">(
  label: string,
  opts: { users?: readonly U[]; tmpPrefix?: string } = {},
): Promise<CliStack<U>> {
  const users = opts.users ?? (["ada"] as readonly Who[] as readonly U[]);
  let w: World | undefined;
  let server: Awaited<ReturnType<typeof serveRest>> | undefined;
  let dir: string | undefined;
  // Safe on a half-started stack: a failed start must not leave a server or a database behind.
  const stop = async () => {
    try {
      await server?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    } finally {
      await w?.db.drop();
    }
  };
  try {
    w = await makeWorld(label);
    const tokens = {} as Record<U, string>;
    for (const who of users) tokens[who] = (await createApiToken(w.db.prisma, w.users[who], { name: "cli" })).token;
    server = await serveRest(w);
    dir = mkdtempSync(join(tmpdir(), opts.tmpPrefix ?? "tranche-cli-"));
    const url = server.url;
    const config = join(dir, "none.json");
    const bin = await bundleCli(dir);
    const cli = (args: string[], as: U = users[0]!) =>
      new Promise<CliResult>((ok) => {
        execFile(process.execPath, [bin, ...args], { env: cliEnv(url, tokens[as], config) }, (err, stdout, stderr) =>
          ok({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      });
    return { w, url, dir, tokens, cli, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
