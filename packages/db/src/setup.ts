// Process-level setup: start/locate Postgres, apply migrations, seed. Used by `npm start`, tests and tools.
export {
  openDatabase,
  assertReachable,
  embeddedDataDir,
  runningEmbeddedUrl,
  DEFAULT_EMBEDDED_PORT,
  type Database,
} from "./database";
export { startEmbeddedPostgres, ensureDatabase, portIsFree, embeddedDatabaseUrl, type EmbeddedServer } from "./embedded-postgres";
export { migrateDeploy, prismaCli } from "./migrate";
export { repoRoot } from "./repo-root";
export { seedDemoWorld, isSeeded, DEMO_LOGINS, DEMO_PASSWORD, DEMO_CLUSTERS } from "./seed/demo-world";
