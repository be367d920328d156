// Who listens on a TCP port of this host, from the kernel's socket tables (/proc/net/tcp and tcp6).
// The agent picks a session's port, frees it and starts the server, which binds it a moment later
// (seconds, for Jupyter, whose command line shows the port to every user of the node): another
// user's process may take the port in between. The port is reported to the control plane, whose
// proxy sends the owner's requests there with the session's token, only once the job's own user
// listens on it.
import { readFileSync } from "node:fs";

/** A socket in the LISTEN state, in the tables' hexadecimal state column. */
const LISTEN = "0A";

/**
 * The uids of the sockets listening on TCP `port` (any local address, IPv4 or IPv6); null when the
 * tables cannot be read (no /proc), so that nobody can be told apart.
 */
export function listenerUids(port: number, read: (path: string) => string = (p) => readFileSync(p, "utf8")): number[] | null {
  const uids: number[] = [];
  let readAny = false;
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = read(table);
    } catch {
      continue; // tcp6 is absent where IPv6 is off
    }
    readAny = true;
    for (const line of text.split("\n").slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid ...
      const f = line.trim().split(/\s+/);
      if (f.length < 8 || f[3] !== LISTEN) continue;
      const localPort = parseInt(f[1]!.slice(f[1]!.lastIndexOf(":") + 1), 16);
      if (localPort === port) uids.push(Number(f[7]));
    }
  }
  return readAny ? uids : null;
}

/**
 * Does `uid`, and nobody else, listen on `port`? A listener of another uid on the same port (another
 * address, or SO_REUSEPORT) could receive the requests meant for the session's server.
 */
export function listensAlone(port: number, uid: number, read?: (path: string) => string): boolean {
  const uids = listenerUids(port, read);
  return uids !== null && uids.length > 0 && uids.every((u) => u === uid);
}
