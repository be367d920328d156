import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { API_TOKENS_PER_HOUR, createApiToken, MAX_LIVE_TOKENS_PER_USER } from "@tranche/domain";
import { makeWorld, type World } from "./fixtures";

// Two token creations of one person at once must not both pass a limit counted before the insert (live
// tokens, tokens made this hour). The test makes them overlap for certain: its own connection holds
// audit_log, where each creation writes last, so the first waits there with its token inserted, and
// the second counts meanwhile; then it lets go.

let w: World;
beforeAll(async () => {
  w = await makeWorld("api_token_limit_race");
});
afterAll(async () => {
  await w?.db.drop();
});

/**
 * Until `n` sessions of this database wait for a lock (polled; no time is asserted). On a connection
 * of its own: inside the holder's transaction, pg_stat_activity would stay as it first read it.
 */
async function untilWaiting(n: number): Promise<void> {
  const c = new pg.Client({ connectionString: w.db.url });
  await c.connect();
  try {
    for (;;) {
      const r = await c.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      if (r.rows[0].n >= n) return;
      await new Promise((done) => setTimeout(done, 10));
    }
  } finally {
    await c.end();
  }
}

/** Two creations for `who`, the second started while the first waits to write its audit row. */
async function twoAtOnce(who: "ada" | "other"): Promise<string[]> {
  const holder = new pg.Client({ connectionString: w.db.url });
  await holder.connect();
  try {
    await holder.query("BEGIN");
    await holder.query("LOCK TABLE audit_log IN EXCLUSIVE MODE");
    const make = (name: string) =>
      createApiToken(w.db.prisma, w.users[who], { name }).then(
        () => "made",
        (e: Error) => e.message,
      );
    const first = make("first");
    await untilWaiting(1);
    const second = make("second");
    await untilWaiting(2);
    await holder.query("COMMIT");
    return [await first, await second];
  } finally {
    await holder.end();
  }
}

const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000);

it("of two tokens made at once by someone one short of the live-token limit, the second is refused", async () => {
  const ada = w.users.ada;
  await w.db.prisma.apiToken.createMany({
    data: Array.from({ length: MAX_LIVE_TOKENS_PER_USER - 1 }, (_, i) => ({
      userId: ada.id,
      name: `old ${i}`,
      prefix: "trn_old",
      tokenHash: `old-${i}`,
      createdAt: hoursAgo(3), // made long ago: the hourly bound is the next test's
      expiresAt: new Date(Date.now() + 86_400_000),
    })),
  });
  const [first, second] = await twoAtOnce("ada");
  expect(first).toBe("made");
  expect(second).toMatch(new RegExp(`You already hold ${MAX_LIVE_TOKENS_PER_USER} live API tokens`));
  expect(await w.db.prisma.apiToken.count({ where: { userId: ada.id } })).toBe(MAX_LIVE_TOKENS_PER_USER);
});

it("of two tokens made at once by someone one short of the hourly bound, the second is refused", async () => {
  const other = w.users.other;
  await w.db.prisma.apiToken.createMany({
    data: Array.from({ length: API_TOKENS_PER_HOUR - 1 }, (_, i) => ({
      userId: other.id,
      name: `lately ${i}`,
      prefix: "trn_new",
      tokenHash: `lately-${i}`,
      createdAt: new Date(),
      expiresAt: new Date(Date.now() + 86_400_000),
    })),
  });
  const [first, second] = await twoAtOnce("other");
  expect(first).toBe("made");
  expect(second).toMatch(new RegExp(`You have made ${API_TOKENS_PER_HOUR} API tokens in the last hour`));
  expect(await w.db.prisma.apiToken.count({ where: { userId: other.id } })).toBe(API_TOKENS_PER_HOUR);
});
