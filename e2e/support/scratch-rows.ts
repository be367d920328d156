import pg from "pg";

// Rows a journey puts into the shared e2e database straight (faster than through the app) and takes out
// again when it ends, so the journeys after it find the demo world as it was.

async function withDb<T>(databaseUrl: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
}

/** `count` researchers without a password, person00@`domain` .. : a lab's people on the Users page. */
export function seedPeople(databaseUrl: string, domain: string, count: number): Promise<void> {
  return withDb(databaseUrl, async (c) => {
    await c.query(
      `INSERT INTO "user" (id, email, name, "updatedAt")
       SELECT 'e2e-' || $1 || '-' || g, 'person' || lpad(g::text, 2, '0') || '@' || $1, 'Person ' || g, now()
       FROM generate_series(0, $2::int - 1) g`,
      [domain, count],
    );
  });
}

/** Removes every user whose e-mail is at `domain`, with what is theirs (sessions, links, memberships). */
export function removePeople(databaseUrl: string, domain: string): Promise<number> {
  const sql = `DELETE FROM "user" WHERE right(email, length($1) + 1) = '@' || $1`;
  return withDb(databaseUrl, async (c) => (await c.query(sql, [domain])).rowCount ?? 0);
}

/** Removes one user, with what is theirs. */
export function removeUser(databaseUrl: string, email: string): Promise<number> {
  return withDb(databaseUrl, async (c) => (await c.query(`DELETE FROM "user" WHERE email = $1`, [email])).rowCount ?? 0);
}

/** Removes a tree node that has no children and no jobs, with its shares, members and managers. */
export function removeTreeNode(databaseUrl: string, path: string): Promise<number> {
  return withDb(databaseUrl, async (c) => (await c.query(`DELETE FROM budget_tree_node WHERE path = $1`, [path])).rowCount ?? 0);
}
