import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase, portIsFree } from "@tranche/db/setup";
import { restartDelaySec, Supervisor } from "../platform/supervisor";

const until = async (what: string, fn: () => boolean | Promise<boolean>, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

// `npm start` keeps the platform up when one of its processes dies (issue 15, supervision).
describe("the platform supervisor", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("backs off 1, 2, 4 ... 30 s between restarts in a row", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 20].map(restartDelaySec)).toEqual([1, 2, 4, 8, 16, 30, 30, 30]);
  });

  it("backs off only a crash loop: a service that was up for its healthy period restarts after 1 s every time", async () => {
    const lines: string[] = [];
    const sup = new Supervisor(
      (l) => lines.push(l),
      () => {},
      1500,
    );
    await sup.start({ name: "sleeper", command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] });
    const killAndWait = async () => {
      const pid = sup.pids().sleeper!;
      process.kill(pid, "SIGKILL");
      await until("a new sleeper", () => sup.pids().sleeper !== pid && alive(sup.pids().sleeper!));
    };
    // Two deaths right after a start: a crash loop, backed off.
    await killAndWait();
    await killAndWait();
    // Then up past its healthy period before each of two more deaths: each is a first again.
    for (let i = 0; i < 2; i++) {
      await new Promise((r) => setTimeout(r, 1800));
      await killAndWait();
    }
    await sup.stopAll();
    expect(lines).toEqual([
      "• sleeper exited (SIGKILL); restarting it in 1 s",
      "• sleeper exited (SIGKILL); restarting it in 2 s (restart 2 in a row)",
      "• sleeper exited (SIGKILL); restarting it in 1 s",
      "• sleeper exited (SIGKILL); restarting it in 1 s",
    ]);
  }, 60_000);

  it("starts a service killed with SIGKILL again, says so in one line, and stops it for good at stopAll", async () => {
    const lines: string[] = [];
    const restarts: Record<string, number>[] = [];
    const sup = new Supervisor(
      (l) => lines.push(l),
      (p) => restarts.push(p),
    );
    await sup.start({ name: "sleeper", command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] });
    const first = sup.pids().sleeper!;
    expect(alive(first)).toBe(true);
    const killedAt = Date.now();
    process.kill(first, "SIGKILL");
    await until("a new sleeper", () => sup.pids().sleeper !== first && alive(sup.pids().sleeper!));
    const back = (Date.now() - killedAt) / 1000;
    console.log(`supervisor: sleeper back ${back.toFixed(1)} s after kill -9`);
    expect(back).toBeLessThan(5);
    expect(lines).toEqual(["• sleeper exited (SIGKILL); restarting it in 1 s"]);
    expect(restarts).toEqual([{ sleeper: sup.pids().sleeper }]);
    const second = sup.pids().sleeper!;
    await sup.stopAll();
    expect(alive(second)).toBe(false);
    await new Promise((r) => setTimeout(r, 1500));
    expect(sup.pids().sleeper).toBe(second); // no restart after stopAll
  }, 30_000);

  it("stops every service when its terminal is closed: SIGHUP, with its output going nowhere", async () => {
    const platform = spawn(process.execPath, ["--import", "tsx", join(import.meta.dirname, "support", "sleepers-platform.ts")], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((r) => platform.once("exit", (code) => r(code)));
    let out = "";
    platform.stdout.on("data", (d: Buffer) => (out += d.toString()));
    await until("the platform to start", () => out.includes("Press Ctrl-C"), 30_000);
    const services = Object.values(JSON.parse(/^\{.*\}$/m.exec(out)![0]) as Record<string, number>);
    expect(services.every(alive)).toBe(true);
    try {
      // What a closed terminal does: a hangup, and every write after it fails (EPIPE here, EIO on a tty).
      platform.stdout.destroy();
      platform.stderr.destroy();
      platform.kill("SIGHUP");
      await until("the platform and its services to be gone", () => ![platform.pid!, ...services].some(alive));
      expect(await exited).toBe(0);
    } finally {
      for (const pid of [platform.pid!, ...services].filter(alive)) process.kill(pid, "SIGKILL"); // a failed stop leaves none behind
    }
  }, 60_000);

  /** An embedded PostgreSQL of its own (openDatabase as npm start runs it), its postmaster's pid, a stop. */
  async function ownDatabase() {
    const dir = mkdtempSync(join(tmpdir(), "tranche-keepalive-"));
    dirs.push(dir);
    execFileSync("chmod", ["755", dir]);
    let port = 55700;
    while (!(await portIsFree(port))) port++;
    const saved = { url: process.env.DATABASE_URL, dir: process.env.TRANCHE_DATA_DIR, port: process.env.TRANCHE_PG_PORT };
    delete process.env.DATABASE_URL;
    process.env.TRANCHE_DATA_DIR = join(dir, "data");
    process.env.TRANCHE_PG_PORT = String(port);
    const db = await openDatabase({ migrate: false });
    const postmaster = () => Number(readFileSync(join(dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
    const restoreEnv = () => {
      for (const [k, v] of [
        ["DATABASE_URL", saved.url],
        ["TRANCHE_DATA_DIR", saved.dir],
        ["TRANCHE_PG_PORT", saved.port],
      ] as const)
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    };
    return { db, postmaster, restoreEnv };
  }

  it("starts the embedded PostgreSQL again when it is killed with SIGKILL; the same URL works again", async () => {
    const { db, postmaster, restoreEnv } = await ownDatabase();
    const lines: string[] = [];
    db.keepAlive!((l) => lines.push(l));
    try {
      const killedAt = Date.now();
      process.kill(postmaster(), "SIGKILL");
      await until("PostgreSQL to run again", () => lines.includes("• PostgreSQL is running again"), 60_000);
      const back = (Date.now() - killedAt) / 1000;
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      expect((await client.query("SELECT 1 AS one")).rows[0]).toEqual({ one: 1 });
      await client.end();
      console.log(`supervisor: PostgreSQL back ${back.toFixed(1)} s after kill -9`);
      expect(lines[0]).toBe("• PostgreSQL stopped unexpectedly; starting it again (the services wait and reconnect)");
    } finally {
      await db.stop();
      restoreEnv();
    }
  }, 90_000);

  it("an ended watch starts nothing: Ctrl-C's SIGINT reaches PostgreSQL too, and a stop must not bring it back", async () => {
    const { db, postmaster, restoreEnv } = await ownDatabase();
    const lines: string[] = [];
    const endWatch = db.keepAlive!((l) => lines.push(l));
    try {
      endWatch(); // what shutdown does first
      const pid = postmaster();
      process.kill(pid, "SIGINT");
      await until("PostgreSQL to stop", () => !alive(pid), 30_000);
      await new Promise((r) => setTimeout(r, 4_500)); // two of the watch's rounds
      expect(lines).toEqual([]);
    } finally {
      await db.stop();
      restoreEnv();
    }
  }, 90_000);

  it("a stop during a restart stops the restarted server: no PostgreSQL is left running", async () => {
    const { db, postmaster, restoreEnv } = await ownDatabase();
    const lines: string[] = [];
    db.keepAlive!((l) => lines.push(l));
    try {
      process.kill(postmaster(), "SIGKILL");
      await until("the restart to begin", () => lines.length > 0, 30_000);
      await db.stop();
      // Whatever server the restart started is down once stop() is over, and nothing starts another.
      await new Promise((r) => setTimeout(r, 1_000));
      let left: number | null = null;
      try {
        left = postmaster();
      } catch {
        left = null; // no postmaster.pid: nothing runs
      }
      expect(left === null || !alive(left)).toBe(true);
    } finally {
      await db.stop().catch(() => undefined);
      restoreEnv();
    }
  }, 90_000);
});
