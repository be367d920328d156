import pg from "pg";

/**
 * One query on a connection of its own, closed after: the fault benches' reads survive a database that
 * is stopped or restarting between two of them, where a pool would keep dead connections.
 */
export async function oneShotQuery<T>(url: string, sql: string, params: unknown[] = [], timeoutMs = 5000): Promise<T[]> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000, query_timeout: timeoutMs });
  try {
    await c.connect();
    return (await c.query(sql, params)).rows as T[];
  } finally {
    await c.end().catch(() => {});
  }
}
