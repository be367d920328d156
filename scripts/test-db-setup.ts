// vitest global setup for the integration project: one real PostgreSQL for the whole run, with a
// migrated template database that each test file clones (see @tranche/db/testing).
// Uses TRANCHE_TEST_DATABASE_URL's server when set (e.g. CI with an external Postgres), else an
// embedded PostgreSQL 17 in .data/test-postgres on its own port, stopped when the run ends.
import { join } from "node:path";
import pg from "pg";
import { ensureDatabase, migrateDeploy, repoRoot, startEmbeddedPostgres } from "@tranche/db/setup";
import { TEMPLATE_DB, prepareOwnTemplate, removeOwnTemplate } from "@tranche/db/testing";

export default async function setup(): Promise<() => Promise<void>> {
  let serverUrl: string;
  let stop = async () => {};
  if (process.env.TRANCHE_TEST_DATABASE_URL) {
    serverUrl = process.env.TRANCHE_TEST_DATABASE_URL;
  } else {
    const server = await startEmbeddedPostgres({
      // Both overridable so two runs on one machine (e.g. two checkouts) do not share a server.
      dataDir: process.env.TRANCHE_TEST_PG_DIR ?? join(repoRoot(), ".data", "test-postgres"),
      port: Number(process.env.TRANCHE_TEST_PG_PORT ?? 54339),
      database: "postgres",
    });
    serverUrl = server.url;
    stop = () => server.stop();
  }
  const templateUrl = new URL(serverUrl);
  templateUrl.pathname = `/${TEMPLATE_DB}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  // Recreate the template so it always matches the committed migrations.
  await admin.query(`DROP DATABASE IF EXISTS "${TEMPLATE_DB}" WITH (FORCE)`);
  await admin.end();
  await ensureDatabase(templateUrl.toString());
  await migrateDeploy(templateUrl.toString());
  process.env.TRANCHE_TEST_SERVER_URL = serverUrl;
  // The data folder tests' own servers copy (@tranche/db/testing), made in the background from here on:
  // a test that needs it first waits for it, and makes it itself should this fail.
  const ownTemplate = join(repoRoot(), ".data", `test-own-template-${process.pid}`);
  process.env.TRANCHE_TEST_OWN_TEMPLATE = ownTemplate;
  const ownTemplateMade = prepareOwnTemplate(ownTemplate).catch(() => undefined);
  return async () => {
    await ownTemplateMade;
    removeOwnTemplate(ownTemplate);
    await stop();
  };
}
