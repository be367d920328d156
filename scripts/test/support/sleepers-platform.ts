// The platform's supervision and stop (Supervisor, stopOnSignals) as platform.ts wires them, over two
// sleeping services instead of PostgreSQL and the web app, so its stop is tested without a build. Prints
// its services' pids as JSON, then the line platform.ts ends its start with.
import { stopOnSignals } from "../../platform/stop-on-signal";
import { Supervisor } from "../../platform/supervisor";

const supervisor = new Supervisor();
let stopping = false;
stopOnSignals((why) => {
  if (stopping) return;
  stopping = true;
  console.log(`\n• stopping (${why})…`);
  void supervisor.stopAll().then(() => {
    console.log("• stopped");
    process.exit(0);
  });
});
for (const name of ["first", "second"])
  await supervisor.start({ name, command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] });
console.log(JSON.stringify(supervisor.pids()));
console.log("Press Ctrl-C to stop.");
