// Apply committed migrations to DATABASE_URL (the compose deployment's one-shot `migrate` service, and
// upgrades of a server you run yourself). It seeds nothing: a lab's database holds no account until
// `npm run admin -- create-admin` makes the first administrator. `--demo` also seeds the demo world
// (published password) into an empty database, for trying Tranche out. `--dry-run` checks the options and
// DATABASE_URL and exits without connecting; `--help` prints this text.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { ConfigError } from "@tranche/db";
import { openDatabase } from "@tranche/db/setup";
import { CREATE_ADMIN_COMMAND, firstStartNotes, prepareDatabase } from "./platform/first-start";

function options(): { demo: boolean; dryRun: boolean; help: boolean } {
  try {
    const { values } = parseArgs({
      options: { demo: { type: "boolean" }, "dry-run": { type: "boolean" }, help: { type: "boolean" } },
      strict: true,
      allowPositionals: false,
    });
    return { demo: Boolean(values.demo), dryRun: Boolean(values["dry-run"]), help: Boolean(values.help) };
  } catch (e) {
    const message = (e as Error).message;
    // `--seed` used to seed the demo world: say what replaced it instead of a bare "unknown option".
    if (process.argv.includes("--seed"))
      throw new ConfigError(
        `migrate.ts no longer takes --seed: it seeds nothing (create the first administrator with ${CREATE_ADMIN_COMMAND}); --demo seeds the demo world.`,
      );
    throw new ConfigError(`${message.split("\n")[0]} (usage: migrate.ts [--demo] [--dry-run] [--help])`);
  }
}

try {
  const { demo, dryRun, help } = options();
  if (help) {
    const lines = readFileSync(new URL(import.meta.url), "utf8").split("\n");
    console.log(
      lines
        .slice(
          0,
          lines.findIndex((l) => !l.startsWith("//")),
        )
        .map((l) => l.slice(3))
        .join("\n"),
    );
    process.exit(0);
  }
  if (!process.env.DATABASE_URL) throw new ConfigError("DATABASE_URL is not set.");
  if (dryRun) {
    console.log(`dry run: would apply the migrations to DATABASE_URL${demo ? " and seed the demo world if it is empty" : ""}`);
    process.exit(0);
  }
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
