import { execFile } from "node:child_process";
import { createServer, type Server } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// A mistake in the command line is said first, exit code 2, and nothing is asked of the server:
// `tranche explain abc` said "Not signed in" when no token was set, and asked the server when one was.

let dir: string;
let bundle: string;
let server: Server;
let url: string;
let requests = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tranche-cli-args-"));
  bundle = join(dir, "tranche.cjs");
  const main = resolve(import.meta.dirname, "../src/main.ts");
  await build({ entryPoints: [main], bundle: true, platform: "node", format: "cjs", outfile: bundle, logLevel: "warning" });
  server = createServer((_req, res) => {
    requests++;
    res.writeHead(500, { "content-type": "application/json" }).end('{"error":{"message":"no request was expected"}}');
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const a = server.address();
  url = `http://127.0.0.1:${typeof a === "object" && a ? a.port : 0}`;
}, 60_000);
afterAll(async () => {
  await new Promise<void>((done) => server?.close(() => done()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function run(args: string[], signedIn: boolean): Promise<{ code: number; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, TRANCHE_CONFIG: join(dir, "no-config.json") };
  delete env.TRANCHE_URL;
  delete env.TRANCHE_TOKEN;
  if (signedIn) Object.assign(env, { TRANCHE_URL: url, TRANCHE_TOKEN: "trn_test" });
  return new Promise((done) =>
    execFile(process.execPath, [bundle, ...args], { env }, (e, _stdout, stderr) =>
      done({ code: e ? ((e as { code?: number }).code ?? 1) : 0, stderr }),
    ),
  );
}

const CASES: [string[], RegExp][] = [
  [["explain", "abc"], /job id must be a whole number written in digits \(such as 42\), got 'abc'/],
  [["logs", "4x"], /job id must be a whole number written in digits/],
  [["depend", "abc", "--after", "41:ok"], /job id must be a whole number written in digits/],
  [["update", "abc", "--gpus", "2"], /job id must be a whole number written in digits/],
  [["update", "0", "--array", "--gpus", "2"], /array id must be a whole number written in digits/],
  [["extend", "abc", "--by", "1h"], /session id must be a whole number written in digits/],
  [["extend", "42", "--by", "90"], /--by 90 has no unit/],
  [["cancel", "abc"], /job id must be a whole number written in digits/],
  [["hold", "41", "abc"], /job id must be a whole number written in digits \(such as 42\), got 'abc'/],
  [["release", "--array", "x"], /array id must be a whole number written in digits/],
  [["cancel"], /Name the jobs/],
  [["queue", "h100", "--limit", "abc"], /--limit must be a positive whole number/],
  [["ls", "--limit", "0"], /--limit must be a positive whole number/],
  [["report", "h100", "--hours", "abc"], /--hours must be a whole number/],
  [["limit", "lab/nlp", "abc"], /The GPU limit must be a whole number/],
  [
    ["submit", "--cluster", "h100", "--budget", "b", "--gpus", "1", "--min-runtime", "90", "--", "true"],
    /--min-runtime 90 has no unit/,
  ],
  [
    ["submit", "--cluster", "h100", "--budget", "b", "--gpus", "x", "--min-runtime", "1h", "--", "true"],
    /--gpus must be a number/,
  ],
  [["session", "--cluster", "h100", "--budget", "b", "--gpus", "1", "--min-runtime", "1h", "-t", "2h"], /tranche has no --time/],
  [["admin", "audit", "--limit", "-1"], /--limit must be a positive whole number/],
  [["explain"], /missing required argument 'job'/],
];

describe("a bad argument", () => {
  it.each(CASES)("tranche %j: said first, exit code 2, whether or not signed in, and no request", async (args, said) => {
    for (const signedIn of [false, true]) {
      const before = requests;
      const r = await run(args, signedIn);
      expect(r.stderr, `signed in: ${signedIn}`).toMatch(said);
      expect(r.stderr).not.toMatch(/Not signed in/);
      expect(r.code, r.stderr).toBe(2);
      expect(requests - before).toBe(0);
    }
  });
});
