// A second, independent real PostgreSQL for the DATABASE_URL tests: Debian's server when installed
// (.ci/run installs it), else another embedded server in its own data folder. Either way a real process.
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { portIsFree, startEmbeddedPostgres } from "@tranche/db/setup";

export interface SecondServer {
  kind: "debian" | "embedded";
  url: string;
  stop(): Promise<void>;
}

async function freePort(from: number): Promise<number> {
  for (let p = from; p < from + 200; p++) if (await portIsFree(p)) return p;
  throw new Error("no free port");
}

function debianBinDir(): string | null {
  const base = "/usr/lib/postgresql";
  if (!existsSync(base)) return null;
  const versions = readdirSync(base).filter((v) => existsSync(join(base, v, "bin", "postgres")));
  return versions.length ? join(base, versions.sort().at(-1)!, "bin") : null;
}

export async function startSecondServer(): Promise<SecondServer> {
  const port = await freePort(55432);
  const dir = mkdtempSync(join(tmpdir(), "tranche-pg2-"));
  chmodSync(dir, 0o755);
  const bin = debianBinDir();
  if (!bin) {
    const server = await startEmbeddedPostgres({ dataDir: join(dir, "data"), port, database: "tranche_external" });
    return {
      kind: "embedded",
      url: server.url,
      stop: async () => {
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const data = join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) =>
    asRoot
      ? execFileSync("runuser", ["-u", "postgres", "--", cmd, ...args], { stdio: "pipe" })
      : execFileSync(cmd, args, { stdio: "pipe" });
  if (asRoot) execFileSync("chown", ["postgres", dir]);
  const pwfile = join(dir, "pw");
  execFileSync("sh", ["-c", `echo external > ${pwfile} && chmod 644 ${pwfile}`]);
  run(join(bin, "initdb"), ["-D", data, "-U", "postgres", "--pwfile", pwfile, "-A", "scram-sha-256"]);
  run(join(bin, "pg_ctl"), [
    "-D",
    data,
    "-w",
    "-l",
    join(dir, "log"),
    "-o",
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`,
    "start",
  ]);
  return {
    kind: "debian",
    url: `postgresql://postgres:external@127.0.0.1:${port}/tranche_external`,
    stop: async () => {
      run(join(bin, "pg_ctl"), ["-D", data, "-w", "-m", "fast", "stop"]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
