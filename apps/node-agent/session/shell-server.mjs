// The shell server of an interactive session (issue 14): what the agent launches for a session without
// --jupyter. Plain Node, no dependencies, so every node that runs the agent can run it.
//
// It listens on TRANCHE_SESSION_PORT (picked by the agent) and answers only requests that carry the
// session's token (TRANCHE_SESSION_TOKEN): "Authorization: token <t>" (what the web app's proxy sends),
// "Bearer <t>", or ?token=<t> (an SSH tunnel's browser). Every command runs in the session's working
// folder, which lives on the shared checkpoint root: files written here survive preemption.
//
//   GET  /              a small terminal page (type a command, see its output)
//   POST /exec          {"command": "..."} -> {"exitCode", "stdout", "stderr"} (60 s, 1 MiB per stream at most)
//   GET  /files/<path>  a file of the working folder
//   GET  /health        {"ok": true, "dir": ...}
//
// Paths may carry the proxy's prefix (TRANCHE_SESSION_BASE, e.g. /api/v1/sessions/12/proxy): it is dropped.
import { spawn } from "node:child_process";
import { timingSafeEqual } from "node:crypto";
import { readFile, realpath } from "node:fs/promises";
import { createServer } from "node:http";
import { isAbsolute, relative, resolve } from "node:path";

const port = Number(process.env.TRANCHE_SESSION_PORT);
const token = process.env.TRANCHE_SESSION_TOKEN ?? "";
const base = (process.env.TRANCHE_SESSION_BASE ?? "").replace(/\/+$/, "");
const dir = process.cwd();
const MAX_OUTPUT = 1024 * 1024;
const MAX_BODY = 64 * 1024;
const EXEC_TIMEOUT_MS = 60_000;

if (!Number.isInteger(port) || port < 1 || port > 65535 || token.length < 16) {
  console.error("shell server: TRANCHE_SESSION_PORT and TRANCHE_SESSION_TOKEN must be set (the agent sets them)");
  process.exit(2);
}

function authorized(req, url) {
  const header = req.headers.authorization ?? "";
  const m = /^(?:token|bearer)\s+(\S+)$/i.exec(header.trim());
  const given = m ? m[1] : (url.searchParams.get("token") ?? "");
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function send(res, status, body, type = "application/json; charset=utf-8") {
  const text = typeof body === "string" || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
  res.end(text);
}

function readBody(req) {
  return new Promise((ok, fail) => {
    let size = 0;
    const parts = [];
    req.on("data", (c) => {
      size += c.length;
      if (size > MAX_BODY) {
        fail(new Error(`the request body is larger than ${MAX_BODY} bytes`));
        req.destroy();
      } else parts.push(c);
    });
    req.on("end", () => ok(Buffer.concat(parts).toString("utf8")));
    req.on("error", fail);
  });
}

function run(command) {
  return new Promise((ok) => {
    const child = spawn("/bin/sh", ["-c", command], { cwd: dir, env: process.env, stdio: ["ignore", "pipe", "pipe"] });
    const out = { stdout: "", stderr: "" };
    for (const stream of ["stdout", "stderr"])
      child[stream].on("data", (d) => {
        if (out[stream].length < MAX_OUTPUT) out[stream] += d.toString("utf8").slice(0, MAX_OUTPUT - out[stream].length);
      });
    const timer = setTimeout(() => child.kill("SIGKILL"), EXEC_TIMEOUT_MS);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      ok({ exitCode: code, signal, ...out });
    });
  });
}

// The page posts to an absolute path under the prefix it was served at, so it works whether or not a
// proxy in front added or dropped a trailing slash.
const page = (prefix) => `<!doctype html><meta charset="utf-8"><title>Session</title>
<style>body{font:14px system-ui;margin:1.5rem;max-width:60rem}pre{background:#111;color:#eee;padding:1rem;min-height:12rem;white-space:pre-wrap}input{width:80%;font:14px monospace}</style>
<h1>Session shell</h1><p>Commands run in <code>${dir.replace(/[<&>]/g, "")}</code>, which is kept across preemptions.</p>
<form id="f"><input id="c" name="command" autocomplete="off" autofocus placeholder="ls -la"> <button>Run</button></form><pre id="o"></pre>
<script>
const o = document.getElementById("o"), c = document.getElementById("c");
const q = new URLSearchParams(location.search).get("token");
document.getElementById("f").onsubmit = async (e) => {
  e.preventDefault();
  const r = await fetch(${JSON.stringify(prefix + "/exec")} + (q ? "?token=" + encodeURIComponent(q) : ""), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ command: c.value }) });
  const j = await r.json();
  o.textContent += "$ " + c.value + "\\n" + (j.stdout ?? "") + (j.stderr ?? "") + (j.exitCode ? "(exit " + j.exitCode + ")\\n" : "") + (j.error ? j.error.message + "\\n" : "");
  c.value = "";
};
</script>`;

const server = createServer(async (req, res) => {
  try {
    const url = new URL(req.url ?? "/", "http://session");
    if (!authorized(req, url)) return send(res, 401, { error: { message: "This session's token is missing or wrong" } });
    let path = url.pathname;
    const prefixed = base !== "" && (path === base || path.startsWith(base + "/"));
    if (prefixed) path = path.slice(base.length) || "/";
    if (req.method === "GET" && path === "/") return send(res, 200, page(prefixed ? base : ""), "text/html; charset=utf-8");
    if (req.method === "GET" && path === "/health") return send(res, 200, { ok: true, dir });
    if (req.method === "POST" && path === "/exec") {
      let body;
      try {
        body = JSON.parse(await readBody(req));
      } catch (e) {
        return send(res, 400, { error: { message: `Send {"command": "..."} as JSON (${e.message})` } });
      }
      if (typeof body?.command !== "string" || body.command.trim() === "")
        return send(res, 400, { error: { message: 'Send {"command": "..."}: command must be a non-empty string' } });
      return send(res, 200, await run(body.command));
    }
    if (req.method === "GET" && path.startsWith("/files/")) {
      const wanted = resolve(dir, decodeURIComponent(path.slice("/files/".length)));
      let real;
      try {
        real = await realpath(wanted);
      } catch {
        return send(res, 404, { error: { message: `No file ${relative(dir, wanted)} in the session's folder` } });
      }
      const rel = relative(await realpath(dir), real);
      if (rel.startsWith("..") || isAbsolute(rel))
        return send(res, 403, { error: { message: "Only files of the session's folder are served" } });
      return send(res, 200, await readFile(real), "application/octet-stream");
    }
    return send(res, 404, { error: { message: `No such page: ${req.method} ${path}` } });
  } catch (e) {
    return send(res, 500, { error: { message: String(e?.message ?? e) } });
  }
});

server.listen(port, "0.0.0.0", () => console.log(`shell server: listening on port ${port}, working folder ${dir}`));
// The agent's stop (SIGTERM at preemption) ends it at once: its files are already on disk.
for (const sig of ["SIGTERM", "SIGINT"])
  process.on(sig, () => {
    console.log(`shell server: stopping (${sig})`);
    process.exit(0);
  });
