// Prisma CLI configuration. Prisma 6.19 migrates offline only through its JavaScript schema engine
// and a driver adapter; the workarounds below are documented in docs/offline-and-prisma.md.
import { defineConfig } from "prisma/config";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";

// Without a resolvable URL `prisma generate` tries to download a query engine (workaround 5).
process.env.DATABASE_URL ??= "postgresql://postgres:postgres@127.0.0.1:5432/tranche";

// The WASM engine arms a 10 s timer that keeps every CLI call alive; unref long timers (workaround 4).
const originalSetTimeout = globalThis.setTimeout;
globalThis.setTimeout = ((handler: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
  const timer = originalSetTimeout(handler, ms, ...args);
  if ((ms ?? 0) >= 10_000) (timer as unknown as { unref?: () => void }).unref?.();
  return timer;
}) as typeof setTimeout;

// adapter-pg cannot map `name` (19) and `"char"` (18) columns that the engine's introspection
// returns (prisma/orm#27403): read them as text (workaround 1). Must support pg's callback form.
type Fields = { fields?: { dataTypeID: number }[] };
function asText(result: unknown): void {
  for (const field of (result as Fields | undefined)?.fields ?? []) {
    if (field.dataTypeID === 18 || field.dataTypeID === 19) field.dataTypeID = 25;
  }
}
class TextOidClient extends pg.Client {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(config: any, values?: any, callback?: any): any {
    if (typeof values === "function") [values, callback] = [undefined, values];
    if (typeof callback === "function") {
      return super.query(config, values, (err: Error, res: unknown) => {
        asText(res);
        callback(err, res);
      });
    }
    const pending = super.query(config, values);
    if (pending && typeof (pending as Promise<unknown>).then === "function") {
      return (pending as Promise<unknown>).then((res) => {
        asText(res);
        return res;
      });
    }
    return pending;
  }
}

function connectionFields(url: string): pg.PoolConfig {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database: decodeURIComponent(u.pathname.slice(1)),
    Client: TextOidClient as unknown as typeof pg.Client,
    // Idle pool clients would keep every CLI call alive for pg's 10 s idle timeout.
    allowExitOnIdle: true,
  };
}

// adapter-pg ignores `database` when a connection string is given and drops the shadow database while
// its pool is still open: create and drop it ourselves from discrete fields (workaround 2).
class ShadowAwarePg extends PrismaPg {
  private readonly fields: pg.PoolConfig;
  constructor(fields: pg.PoolConfig) {
    super(fields);
    this.fields = fields;
  }
  override async connectToShadowDb() {
    const admin = new pg.Client({ ...this.fields, Client: undefined } as pg.ClientConfig);
    await admin.connect();
    const database = `prisma_shadow_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
    await admin.query(`CREATE DATABASE "${database}"`);
    await admin.end();
    const shadow = await new PrismaPg({ ...this.fields, database }).connect();
    const dispose = shadow.dispose.bind(shadow);
    shadow.dispose = async () => {
      await dispose();
      const cleanup = new pg.Client({ ...this.fields, Client: undefined } as pg.ClientConfig);
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await cleanup.end();
    };
    return shadow;
  }
}

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  adapter: async () => new ShadowAwarePg(connectionFields(process.env.DATABASE_URL!)),
});
