// Apply committed migrations to DATABASE_URL (the compose deployment's one-shot `migrate` service, and
// upgrades of a server you run yourself). It seeds nothing: a lab's database holds no account until
// `npm run admin -- create-admin` makes the first administrator. `--demo` also seeds the demo world
// (published password) into an empty database, for trying Tranche out.
import { parseArgs } from "node:util";
import { ConfigError } from "@tranche/db";
import { openDatabase } from "@tranche/db/setup";
import { CREATE_ADMIN_COMMAND, firstStartNotes, prepareDatabase } from "./platform/first-start";

function options(): { demo: boolean } {
  try {
    const { values } = parseArgs({ options: { demo: { type: "boolean" } }, strict: true, allowPositionals: false });
    return { demo: Boolean(values.demo) };
  } catch (e) {
    const message = (e as Error).message;
    // `--seed` used to seed the demo world: say what replaced it instead of a bare "unknown option".
    if (process.argv.includes("--seed"))
      throw new ConfigError(
        `migrate.ts no longer takes --seed: it seeds nothing (create the first administrator with ${CREATE_ADMIN_COMMAND}); --demo seeds the demo world.`,
      );
    throw new ConfigError(`${message.split("\n")[0]} (usage: migrate.ts [--demo])`);
  }
}

try {
  const { demo } = options();
  if (!process.env.DATABASE_URL) throw new ConfigError("DATABASE_URL is not set.");
  const db = await openDatabase();
  console.log("migrations applied");
  const state = await prepareDatabase(db.url, demo);
  if (state.seededDemo) console.log("demo world seeded");
  for (const note of firstStartNotes(state, demo)) console.log(note);
  await db.stop();
} catch (e) {
  console.error(e instanceof ConfigError ? `tranche: ${e.message}` : e);
  process.exit(1);
}
