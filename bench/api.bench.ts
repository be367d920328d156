// REST API benchmark: POST /api/v1/jobs (submit) and GET /api/v1/jobs (list) against a real stack
// (fresh embedded Postgres + demo world + built web app under `next start` + the worker), open loop at a
// fixed request rate so slow answers cannot slow the load down (no coordinated omission).
//
//   npx turbo run build && node --import tsx bench/api.bench.ts [--rate 50] [--seconds 30] [--url http://127.0.0.1:3100]
//
// --rate is requests per second in total, alternating submit and list. Target (issue 6): p99 <= 100 ms.
// --no-worker leaves the scheduler out (isolates the API's own cost).
// With --url it uses a running server (demo world seeded) instead of starting its own.
import { spawn, type ChildProcess } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const arg = (n: string, d: string) => {
  const i = args.indexOf(`--${n}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : d;
};
const RATE = Number(arg("rate", "50"));
const SECONDS = Number(arg("seconds", "30"));
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

function pct(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function startStack(): Promise<{ url: string; stop: () => Promise<void> }> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      join(ROOT, "e2e", "support", "stack.ts"),
      "--port",
      arg("port", "3130"),
      "--pg-port",
      "54380",
      "--data",
      ".data/bench-api-pg",
      ...(args.includes("--no-worker") ? [] : ["--worker"]),
    ],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let buf = "";
    child.stdout!.on("data", (d: Buffer) => {
      buf += d.toString();
      const m = /READY (\{.*\})/.exec(buf);
      if (m) resolve((JSON.parse(m[1]!) as { url: string }).url);
    });
    child.once("exit", (c) => reject(new Error(`stack exited with ${c}`)));
  });
  return {
    url,
    stop: () =>
      new Promise<void>((r) => {
        child.once("exit", () => r());
        child.kill("SIGTERM");
      }),
  };
}

async function token(url: string): Promise<string> {
  const signIn = await fetch(`${url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: url },
    body: JSON.stringify({ email: "ada@tranche.example", password: "tranche-demo" }),
  });
  const cookie = signIn.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const res = await fetch(`${url}/api/trpc/token.create`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie },
    body: JSON.stringify({ json: { name: "bench" } }),
  });
  return ((await res.json()) as { result: { data: { json: { token: string } } } }).result.data.json.token;
}

async function main() {
  const external = arg("url", "");
  const stack = external ? { url: external, stop: async () => {} } : await startStack();
  try {
    const bearer = await token(stack.url);
    const headers = { authorization: `Bearer ${bearer}`, "content-type": "application/json" };
    const body = JSON.stringify({
      cluster: "h100",
      budget: "lab/language/pretraining",
      gpus: 8,
      minRuntime: 3600,
      resumable: true,
      priority: 0,
      command: "sleep 3600",
      env: {},
      name: "bench",
    });
    const submit = () => fetch(`${stack.url}/api/v1/jobs`, { method: "POST", headers, body });
    const list = () => fetch(`${stack.url}/api/v1/jobs?limit=50`, { headers });
    // Warm up (JIT, connection pools) for 3 s at a low rate.
    for (let i = 0; i < 30; i++) {
      await (await submit()).arrayBuffer();
      await (await list()).arrayBuffer();
    }
    const lat: Record<"submit" | "list", number[]> = { submit: [], list: [] };
    const errors: Record<string, number> = {};
    const total = RATE * SECONDS;
    const interval = 1000 / RATE;
    const t0 = performance.now();
    const inflight: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = t0 + i * interval;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const kind = i % 2 === 0 ? "submit" : "list";
      inflight.push(
        (async () => {
          const start = performance.now();
          try {
            const res = await (kind === "submit" ? submit() : list());
            await res.arrayBuffer();
            if (res.status !== (kind === "submit" ? 201 : 200))
              errors[`${kind} ${res.status}`] = (errors[`${kind} ${res.status}`] ?? 0) + 1;
          } catch (e) {
            errors[`${kind} ${(e as Error).message}`] = (errors[`${kind} ${(e as Error).message}`] ?? 0) + 1;
          }
          // Latency from when the request was due, so a stalled server shows up in the tail.
          lat[kind].push(performance.now() - Math.min(start, due));
        })(),
      );
    }
    await Promise.all(inflight);
    const elapsed = (performance.now() - t0) / 1000;
    const report: Record<string, unknown> = { rate: RATE, seconds: SECONDS, elapsedSeconds: Number(elapsed.toFixed(1)), errors };
    let worstP99 = 0;
    for (const k of ["submit", "list"] as const) {
      const s = lat[k].sort((a, b) => a - b);
      const p99 = pct(s, 99);
      worstP99 = Math.max(worstP99, p99);
      report[k] = {
        count: s.length,
        p50: +pct(s, 50).toFixed(1),
        p90: +pct(s, 90).toFixed(1),
        p99: +p99.toFixed(1),
        max: +s[s.length - 1]!.toFixed(1),
      };
    }
    report.pass = worstP99 <= 100 && Object.keys(errors).length === 0;
    console.log(JSON.stringify(report, null, 2));
    console.log(
      `REST submit+list at ${RATE} req/s for ${SECONDS} s: p99 ${worstP99.toFixed(1)} ms (target <= 100 ms) -> ${report.pass ? "PASS" : "FAIL"}`,
    );
    process.exitCode = report.pass ? 0 : 1;
  } finally {
    await stack.stop();
  }
}

void main();
