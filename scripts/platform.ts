// The platform supervisor behind `npm start`: database, migrations, the demo seed (TRANCHE_DEMO=1, the
// default, into an empty database only), then every service (web app, and the worker and node agents as
// they are registered in platform/services.ts). TRANCHE_DEMO=0 seeds nothing (platform/first-start.ts).
// A service that dies is started again (with backoff, one line saying so); the platform keeps running.
// Ctrl-C (SIGINT/SIGTERM) stops everything it started, Postgres included.
import { ConfigError } from "@tranche/db";
import { DEMO_LOGINS, DEMO_PASSWORD, embeddedDataDir, openDatabase, portIsFree } from "@tranche/db/setup";
import { relative } from "node:path";
import { demoMode, firstStartNotes, prepareDatabase } from "./platform/first-start";
import { stopLeftoverPlatform, writeRunFile, removeRunFile } from "./platform/leftovers";
import { services } from "./platform/services";
import { stopOnSignals } from "./platform/stop-on-signal";
import { Supervisor } from "./platform/supervisor";
import { webConfigProblem } from "../apps/web/server/start-config";

const WEB_HOST = "127.0.0.1";
const WEB_PORT = Number(process.env.PORT ?? 3000);

async function main(): Promise<void> {
  const t0 = Date.now();
  const demo = demoMode();
  await stopLeftoverPlatform((l) => console.log(`• ${l}`));
  if (!Number.isInteger(WEB_PORT) || WEB_PORT < 1 || WEB_PORT > 65535)
    throw new ConfigError(`PORT must be a port number, got '${process.env.PORT}'.`);
  const webProblem = webConfigProblem();
  if (webProblem) throw new ConfigError(webProblem);
  if (!(await portIsFree(WEB_PORT))) {
    throw new ConfigError(`Port ${WEB_PORT} is already in use on ${WEB_HOST}; stop what uses it or set PORT to another port.`);
  }

  console.log(
    process.env.DATABASE_URL
      ? "• using the database at DATABASE_URL"
      : `• starting the embedded PostgreSQL 17 (${shownPath(embeddedDataDir())})`,
  );
  const db = await openDatabase({ log: (l) => console.log(`• ${l}`) });
  const supervisor = new Supervisor(
    (l) => console.log(l),
    (pids) => writeRunFile(pids),
  );
  let stopping = false;
  let endKeepAlive = () => {};
  const shutdown = async (why: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    endKeepAlive();
    console.log(`\n• stopping (${why})…`);
    await supervisor.stopAll();
    await db.stop();
    removeRunFile();
    console.log("• stopped");
    process.exit(code);
  };
  stopOnSignals((why) => void shutdown(why));

  try {
    if (demo) console.log("• demo mode (TRANCHE_DEMO=1): the demo world is seeded into an empty database");
    const state = await prepareDatabase(db.url, demo);
    if (state.seededDemo) console.log("• seeded the demo world (first run)");

    endKeepAlive = db.keepAlive?.((l) => console.log(l)) ?? endKeepAlive;
    const url = `http://${WEB_HOST}:${WEB_PORT}`;
    const ctx = { databaseUrl: db.url, webUrl: url, webHost: WEB_HOST, webPort: WEB_PORT, demo: demo && state.demoWorldPresent };
    for (const s of services(ctx)) await supervisor.start(s);
    writeRunFile(supervisor.pids());

    console.log(`\nTranche is running at ${url}  (ready in ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    console.log(`Health: ${url}/api/health`);
    if (demo && state.demoLoginsPresent) {
      console.log(`Demo logins (password "${DEMO_PASSWORD}"):`);
      for (const l of DEMO_LOGINS) console.log(`  ${l.role.padEnd(10)} ${l.email.padEnd(26)} ${l.note}`);
    }
    for (const note of firstStartNotes(state, demo)) console.log(note);
    console.log("Press Ctrl-C to stop.");
  } catch (e) {
    await supervisor.stopAll();
    await db.stop();
    throw e;
  }
}

main().catch((e: unknown) => {
  if (e instanceof ConfigError) console.error(`tranche: ${e.message}`);
  else console.error(e);
  process.exit(1);
});

/** A folder as the person who started the platform named it: relative to here when inside, else whole. */
function shownPath(dir: string): string {
  const rel = relative(process.cwd(), dir);
  return rel && !rel.startsWith("..") ? rel : dir;
}
