// Interactive sessions on the agent's side (issue 14): the port, the working folder and the command of
// a session's server. The control plane says only which server (RunAssignment.session); the agent picks
// a free port, reports it with the folder, and launches the server through the usual job wrapper.
import {
  accessSync,
  chmodSync,
  closeSync,
  constants as fsConstants,
  fchownSync,
  lstatSync,
  mkdirSync,
  openSync,
  rmSync,
  writeSync,
} from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sessionProxyPath, sessionTokenFile, type RunAssignment } from "@tranche/contracts";
import type { JobIds } from "./job-identity";

/** The shell server shipped with the agent (plain Node, no dependencies). */
export const SHELL_SERVER = fileURLToPath(new URL("../session/shell-server.mjs", import.meta.url));

/**
 * The command line of a Jupyter session's server. The options go to both generations of the server:
 * ServerApp for JupyterLab and Notebook 7 (jupyter_server), NotebookApp for the classic Notebook 6
 * that Debian 12 and many images ship, which ignores ServerApp's and would otherwise pick its own token
 * and serve at "/", out of the proxy's reach. The token travels in the environment (JUPYTER_TOKEN, read
 * by both), not on the command line, which any user of the node can read in /proc (the port is there,
 * so the agent reports it only once the job's user listens on it: port-listener.ts). A job that runs as
 * root (an agent without user mapping, as in the demo) needs --allow-root, without which Jupyter exits.
 */
export function jupyterCommand(program: string, asRoot: boolean): string {
  const options = ["--no-browser", "--ip=0.0.0.0", '--port="$TRANCHE_SESSION_PORT"'];
  // port_retries=0: a port taken meanwhile makes Jupyter exit, not move to one the agent never reports.
  for (const app of ["ServerApp", "NotebookApp"])
    options.push(`--${app}.base_url="$TRANCHE_SESSION_BASE/"`, `--${app}.port_retries=0`);
  options.push("--ServerApp.root_dir=.", "--NotebookApp.notebook_dir=.");
  if (asRoot) options.push("--allow-root");
  return `export JUPYTER_TOKEN="$TRANCHE_SESSION_TOKEN"; exec ${quote(program)} ${options.join(" ")}`;
}

/** A port free on every interface now (the kernel's pick); the server binds it a moment later. */
export function pickPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "0.0.0.0", () => {
      const addr = s.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      s.close(() => (port > 0 ? resolve(port) : reject(new Error("the kernel gave no port"))));
    });
  });
}

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** The first of `names` that is an executable on `path`, or null. */
function findProgram(names: string[], path: string): string | null {
  for (const name of names)
    for (const d of path.split(":").filter(Boolean)) {
      try {
        accessSync(join(d, name), fsConstants.X_OK);
        return join(d, name);
      } catch {
        // not here
      }
    }
  return null;
}

/**
 * A folder of the agent's (no symlink, mode 711 when the agent owns it): jobs pass through it to their
 * own folder but may neither list nor plant anything in it, so nothing in the path can bend the
 * agent's chown or writes elsewhere.
 */
function agentFolder(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o711 });
  const st = lstatSync(path);
  if (!st.isDirectory()) throw new Error(`${path} is not a folder`);
  if (st.uid === process.getuid?.()) chmodSync(path, 0o711);
}

export interface SessionLaunch {
  dir: string;
  command: string;
  env: Record<string, string>;
}

/**
 * Prepare a session's launch. Its working folder is `<checkpoint root>/sessions/<user>`: the same on
 * every node and for every session of that user, so a session preempted (and requeued) or ended and
 * started again finds its files. The token file lets its owner use the server over SSH; it is written
 * without following links (the folder is the user's) and belongs to the job's uid, mode 600.
 * Throws with a sentence for the owner when the server cannot run here (Jupyter not installed).
 */
export function sessionLaunch(
  a: RunAssignment,
  o: { root: string; port: number; nodeName: string; path: string; ids: JobIds | null },
): SessionLaunch {
  const server = a.session!.server;
  const token = a.env.TRANCHE_SESSION_TOKEN;
  if (!token) throw new Error("the session has no token (TRANCHE_SESSION_TOKEN): start a new session");
  let command: string;
  if (server === "JUPYTER") {
    const lab = findProgram(["jupyter-lab"], o.path);
    const notebook = lab ? null : findProgram(["jupyter-notebook"], o.path);
    if (!lab && !notebook)
      throw new Error(
        `Jupyter is not installed on node ${o.nodeName} (no jupyter-lab or jupyter-notebook on the agent's PATH): start a session without --jupyter to get the shell server, or ask an operator to install Jupyter on the nodes`,
      );
    command = jupyterCommand((lab ?? notebook)!, (o.ids?.uid ?? process.getuid?.()) === 0);
  } else {
    command = `exec ${quote(process.execPath)} ${quote(SHELL_SERVER)}`;
  }
  const sessions = join(o.root, "sessions");
  agentFolder(o.root);
  agentFolder(sessions);
  const owner = a.user && /^[A-Za-z0-9_-]{1,128}$/.test(a.user) ? a.user : `job-${a.jobId}`;
  const dir = join(sessions, owner);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!lstatSync(dir).isDirectory()) throw new Error(`${dir} is not a folder`);
  if (o.ids) {
    // Created by the agent in its own folder: chown cannot be sent elsewhere by a link.
    const st = lstatSync(dir);
    if (st.uid !== o.ids.uid) {
      const fd = openSync(dir, fsConstants.O_RDONLY | fsConstants.O_DIRECTORY | fsConstants.O_NOFOLLOW);
      try {
        fchownSync(fd, o.ids.uid, o.ids.gid);
      } finally {
        closeSync(fd);
      }
    }
  }
  chmodSync(dir, 0o700);
  const tokenPath = join(dir, sessionTokenFile(a.jobId));
  rmSync(tokenPath, { force: true });
  const fd = openSync(tokenPath, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, `${token}\n`);
    if (o.ids) fchownSync(fd, o.ids.uid, o.ids.gid);
  } finally {
    closeSync(fd);
  }
  return {
    dir,
    command,
    env: {
      TRANCHE_SESSION_PORT: String(o.port),
      TRANCHE_SESSION_DIR: dir,
      TRANCHE_SESSION_BASE: sessionProxyPath(a.jobId).replace(/\/$/, ""),
    },
  };
}
