// The web process stops within seconds of a SIGTERM although an agent's long-poll, a kept-alive
// connection and a session's WebSocket are open: Next's own handler waits for all of them, which kept
// a stopped web app from exiting for 40 s while the agents, unanswered, neared their 30 s fence.
import { spawn, type ChildProcess } from "node:child_process";
import { request, Agent } from "node:http";
import { connect } from "node:net";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";

let child: ChildProcess | null = null;
afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

function start(): Promise<{ proc: ChildProcess; port: number }> {
  const proc = spawn(process.execPath, ["--import", "tsx", join(__dirname, "support", "stopping-server.ts")], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  child = proc;
  return new Promise((resolve, reject) => {
    let out = "";
    proc.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /port (\d+)/.exec(out);
      if (m) resolve({ proc, port: Number(m[1]) });
    });
    proc.once("exit", (code) => reject(new Error(`the server exited (${code}) before it listened`)));
  });
}

function get(port: string | number, path: string, agent: Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method: "POST", agent }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

it("exits within a couple of seconds of SIGTERM, answering an open long-poll at once", async () => {
  const { proc, port } = await start();
  const keepAlive = new Agent({ keepAlive: true });
  // A kept-alive connection that served a request, a long-poll in flight, a WebSocket held open.
  expect((await get(port, "/", keepAlive)).body).toBe("ok");
  const poll = get(port, "/wait", keepAlive);
  const ws = connect(port, "127.0.0.1");
  ws.on("error", () => {});
  ws.write(`GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n`);
  await new Promise((r) => ws.once("data", r));
  await new Promise((r) => setTimeout(r, 200));

  const sent = Date.now();
  const exited = new Promise<number>((r) => proc.once("exit", () => r(Date.now() - sent)));
  proc.kill("SIGTERM");
  const answered = await Promise.race([poll, new Promise<string>((r) => setTimeout(() => r("no answer in 5 s"), 5000))]);
  const answeredAfter = Date.now() - sent;
  const exitedAfter = await Promise.race([exited, new Promise<number>((r) => setTimeout(() => r(Infinity), 10_000))]);

  expect(answered).toEqual({ status: 200, body: '{"changed":false}' });
  expect(answeredAfter).toBeLessThan(1000);
  expect(exitedAfter).toBeLessThan(3000);
  expect(proc.exitCode).toBe(143);
  keepAlive.destroy();
  ws.destroy();
}, 30_000);
