import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RunAssignment } from "@tranche/contracts";
import { JobRunner } from "../src/runner";
import { listensAlone } from "../src/port-listener";
import { jupyterCommand } from "../src/session";
import { runAssignment } from "./support/assignment";

const dirs: string[] = [];
const runners: JobRunner[] = [];
afterEach(async () => {
  for (const r of runners.splice(0)) await r.stopAll(1000);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const TOKEN = "a-session-token-of-some-length";

function setup(env: Record<string, string> = {}) {
  const d = mkdtempSync(join(tmpdir(), "tranche-session-"));
  dirs.push(d);
  const root = join(d, "root");
  const r = new JobRunner({ dir: join(d, "n1"), nodeName: "n1", log: () => {}, checkpointRoot: root, sessionHost: "127.0.0.1" });
  runners.push(r);
  const assignment = (server: "SHELL" | "JUPYTER"): RunAssignment =>
    runAssignment("70", "interactive session", {
      jobId: 7,
      name: "session",
      env: { TRANCHE_SESSION_TOKEN: TOKEN, ...env },
      user: "user_1",
      session: { server },
    });
  return { r, root, assignment };
}

const until = async <T>(fn: () => T | undefined | null | false, ms = 10_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe("sessions on the agent", () => {
  it("launches the shell server on a port it picks, in the user's folder on the checkpoint root, and reports where", async () => {
    const { r, root, assignment } = setup();
    r.reconcile([assignment("SHELL")], []);
    const report = await until(() => r.reports().find((x) => x.session));
    const dir = join(root, "sessions", "user_1");
    expect(report.session).toEqual({ host: "127.0.0.1", port: expect.any(Number) as number, dir });
    expect(readFileSync(join(dir, ".tranche-session-7.token"), "utf8")).toBe(`${TOKEN}\n`);
    expect(statSync(join(dir, ".tranche-session-7.token")).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);

    const url = `http://127.0.0.1:${report.session!.port}`;
    let res: Response | null = null;
    for (let i = 0; i < 100 && !res; i++) {
      res = await fetch(`${url}/health`, { headers: { authorization: `token ${TOKEN}` } }).catch(() => null);
      if (!res) await new Promise((ok) => setTimeout(ok, 100));
    }
    expect(res?.status).toBe(200);
    // Without the token the server answers nothing useful.
    expect((await fetch(`${url}/health`)).status).toBe(401);
    expect((await fetch(`${url}/health`, { headers: { authorization: "token wrong-token-of-some-length" } })).status).toBe(401);
    const exec = await fetch(`${url}/api/v1/sessions/7/proxy/exec`, {
      method: "POST",
      headers: { authorization: `token ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ command: 'echo hello > f.txt; pwd; echo "$TRANCHE_SESSION_TOKEN" | wc -c' }),
    });
    expect(await exec.json()).toMatchObject({ exitCode: 0, stdout: `${dir}\n${TOKEN.length + 1}\n` });
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("hello\n");
    const file = await fetch(`${url}/files/f.txt?token=${TOKEN}`);
    expect(await file.text()).toBe("hello\n");
    // Nothing outside the working folder is served, by a path or by a link.
    expect((await fetch(`${url}/files/${"..%2F".repeat(20)}etc%2Fpasswd?token=${TOKEN}`)).status).toBe(403);
    await fetch(`${url}/exec?token=${TOKEN}`, { method: "POST", body: JSON.stringify({ command: "ln -s /etc/passwd out" }) });
    expect((await fetch(`${url}/files/out?token=${TOKEN}`)).status).toBe(403);
  });

  it("starts Jupyter with its token in the environment, not its command line, for both generations of the server", () => {
    const d = mkdtempSync(join(tmpdir(), "tranche-jupyter-"));
    dirs.push(d);
    // A stand-in for jupyter-notebook: prints the arguments it got and the token it would read.
    const fake = join(d, "jupyter-notebook");
    writeFileSync(fake, '#!/bin/sh\nfor a in "$@"; do echo "arg $a"; done\necho "token $JUPYTER_TOKEN"\n', { mode: 0o755 });
    const run = (asRoot: boolean) =>
      execFileSync("/bin/sh", ["-c", jupyterCommand(fake, asRoot)], {
        encoding: "utf8",
        env: { TRANCHE_SESSION_TOKEN: TOKEN, TRANCHE_SESSION_PORT: "8888", TRANCHE_SESSION_BASE: "/api/v1/sessions/7/proxy" },
      }).split("\n");
    const out = run(false);
    expect(out).toContain(`token ${TOKEN}`);
    expect(out.filter((l) => l.includes(TOKEN))).toEqual([`token ${TOKEN}`]);
    // JupyterLab and Notebook 7 read ServerApp's options; the classic Notebook 6, NotebookApp's.
    for (const app of ["ServerApp", "NotebookApp"]) expect(out).toContain(`arg --${app}.base_url=/api/v1/sessions/7/proxy/`);
    expect(out).toContain("arg --port=8888");
    // A port taken before Jupyter binds it makes it exit, never move to another that nobody reports.
    for (const app of ["ServerApp", "NotebookApp"]) expect(out).toContain(`arg --${app}.port_retries=0`);
    expect(out).not.toContain("arg --allow-root");
    // Jupyter refuses to run as root unless told: only a job that runs as root says so.
    expect(run(true)).toContain("arg --allow-root");
    expect(jupyterCommand(fake, false)).not.toContain(TOKEN);
  });

  it("fails a Jupyter session with a plain reason when Jupyter is not installed on the node", async () => {
    const { r, assignment } = setup();
    const saved = process.env.PATH;
    process.env.PATH = "/nonexistent";
    try {
      r.reconcile([assignment("JUPYTER")], []);
      const report = await until(() => r.reports().find((x) => x.status === "EXITED"));
      expect(report.signal).toBe("LAUNCH_FAILED");
      expect(report.launchError).toBe(
        "Jupyter is not installed on node n1 (no jupyter-lab or jupyter-notebook on the agent's PATH): start a session without --jupyter to get the shell server, or ask an operator to install Jupyter on the nodes",
      );
    } finally {
      process.env.PATH = saved;
    }
  });

  it("reports a session's port only once its server listens there, so the proxy sends its token nowhere else", async () => {
    const { r, assignment } = setup();
    const d = mkdtempSync(join(tmpdir(), "tranche-slow-jupyter-"));
    dirs.push(d);
    // A stand-in for Jupyter that takes a while to bind its port (Jupyter's imports take seconds, while
    // its command line shows the port to every user of the node): it binds only once the test says so,
    // so a loaded machine cannot make it listen before the checks below.
    const go = join(d, "go");
    writeFileSync(
      join(d, "jupyter-notebook"),
      `#!/bin/sh\nfor a in "$@"; do case "$a" in --port=*) port="\${a#--port=}";; esac; done\nwhile [ ! -f ${JSON.stringify(go)} ]; do sleep 0.05; done\nexec ${JSON.stringify(process.execPath)} -e 'require("http").createServer((q, s) => s.end("up")).listen(Number(process.argv[1]), "0.0.0.0")' "$port"\n`,
      { mode: 0o755 },
    );
    const saved = process.env.PATH;
    process.env.PATH = `${d}:${saved}`;
    try {
      r.reconcile([assignment("JUPYTER")], []);
      await until(() => r.reports().find((x) => x.status === "RUNNING"));
      // Running, not listening yet: whoever took the port meanwhile would get the owner's requests.
      for (let i = 0; i < 10; i++) {
        expect(r.reports().find((x) => x.session)).toBeUndefined();
        await new Promise((ok) => setTimeout(ok, 50));
      }
      writeFileSync(go, "");
      const report = await until(() => r.reports().find((x) => x.session));
      // Reported once it listens: the first request reaches it.
      expect(await (await fetch(`http://127.0.0.1:${report.session!.port}/`)).text()).toBe("up");
    } finally {
      process.env.PATH = saved;
    }
  });

  it("tells the job's user alone listening on a port from another user there too, or nobody", () => {
    const table = (rows: [port: number, state: string, uid: number][]) =>
      [
        "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
        ...rows.map(
          ([port, st, uid], i) =>
            `   ${i}: 00000000:${port.toString(16).toUpperCase().padStart(4, "0")} 00000000:0000 ${st} 00000000:00000000 00:00000000 00000000 ${uid} 0 ${1000 + i} 1 0 100 0 0 10 0`,
        ),
      ].join("\n");
    const read =
      (v4: string, v6 = table([])) =>
      (p: string) =>
        p.endsWith("tcp6") ? v6 : v4;
    expect(listensAlone(38221, 20001, read(table([[38221, "0A", 20001]])))).toBe(true);
    expect(listensAlone(38221, 20001, read(table([]), table([[38221, "0A", 20001]])))).toBe(true);
    // Another user took the port, alone or beside the job (another address, SO_REUSEPORT).
    expect(listensAlone(38221, 20001, read(table([[38221, "0A", 65534]])))).toBe(false);
    expect(listensAlone(38221, 20001, read(table([[38221, "0A", 20001]]), table([[38221, "0A", 65534]])))).toBe(false);
    // Nobody listens: a connection on the port (state 01) is not a listener.
    expect(listensAlone(38221, 20001, read(table([[38221, "01", 20001]])))).toBe(false);
    expect(
      listensAlone(38221, 20001, () => {
        throw new Error("no /proc");
      }),
    ).toBe(false);
  });
});
