import { createHash } from "node:crypto";
import type { DBAdapter, DBAdapterInstance, Where } from "better-auth";

/**
 * Session tokens hashed at rest. better-auth (1.7) keeps a session's token in the `session` row as
 * it is in the cookie, so a copy of the database (a backup, a replica, a read through a hole) would
 * hand out live sessions. This wraps its database adapter so the row holds sha256(token) instead:
 *
 * - create: the row gets the hash; the row handed back to better-auth carries the token itself, so
 *   the cookie it signs is the token, as before;
 * - every lookup, update and delete by token hashes the value it is given (a cookie's token), so a
 *   stored hash presented as a cookie is hashed again and matches nothing: a stolen row cannot be
 *   replayed;
 * - a row read back by a token the caller gave carries that token again (better-auth re-signs the
 *   cookie from it when it extends a session); a row read any other way (a list of a user's
 *   sessions) carries only the hash, which opens nothing.
 *
 * Only the `session` model's `token` field is touched; everything else passes through unchanged.
 */
export const hashSessionToken = (token: string): string => createHash("sha256").update(token, "utf8").digest("hex");

const MODEL = "session";
const FIELD = "token";
const HASHABLE = new Set(["eq", "ne", "in", "not_in", undefined]);

type Tokens = Map<string, string>; // hash -> token, for the rows this call may return

function hashWhere(model: string, where: Where[] | undefined, tokens: Tokens): Where[] | undefined {
  if (model !== MODEL || !where) return where;
  return where.map((w) => {
    if (w.field !== FIELD) return w;
    if (!HASHABLE.has(w.operator))
      throw new Error(`session tokens are stored hashed: a '${w.operator}' match on them cannot work`);
    const one = (v: unknown) => {
      if (typeof v !== "string") return v;
      const h = hashSessionToken(v);
      tokens.set(h, v);
      return h;
    };
    return { ...w, value: (Array.isArray(w.value) ? w.value.map(one) : one(w.value)) as Where["value"] };
  });
}

function hashUpdate(model: string, update: Record<string, unknown>, tokens: Tokens): Record<string, unknown> {
  if (model !== MODEL || typeof update[FIELD] !== "string") return update;
  const h = hashSessionToken(update[FIELD]);
  tokens.set(h, update[FIELD]);
  return { ...update, [FIELD]: h };
}

function restore<T>(model: string, row: T, tokens: Tokens): T {
  if (model !== MODEL || !row || typeof row !== "object") return row;
  const stored = (row as Record<string, unknown>)[FIELD];
  if (typeof stored !== "string" || !tokens.has(stored)) return row;
  return { ...row, [FIELD]: tokens.get(stored) } as T;
}

export function withHashedSessionTokens(adapter: DBAdapter): DBAdapter {
  const wrapped: DBAdapter = {
    ...adapter,
    create: async (d) => {
      const tokens: Tokens = new Map();
      const data = hashUpdate(d.model, d.data as Record<string, unknown>, tokens);
      return restore(d.model, await adapter.create({ ...d, data: data as typeof d.data }), tokens);
    },
    findOne: async (d) => {
      const tokens: Tokens = new Map();
      return restore(d.model, await adapter.findOne({ ...d, where: hashWhere(d.model, d.where, tokens)! }), tokens);
    },
    findMany: async <T>(d: Parameters<DBAdapter["findMany"]>[0]) => {
      const tokens: Tokens = new Map();
      const rows = await adapter.findMany<T>({ ...d, where: hashWhere(d.model, d.where, tokens) });
      return rows.map((r) => restore(d.model, r, tokens));
    },
    count: (d) => adapter.count({ ...d, where: hashWhere(d.model, d.where, new Map()) }),
    update: async <T>(d: Parameters<DBAdapter["update"]>[0]) => {
      const tokens: Tokens = new Map();
      const where = hashWhere(d.model, d.where, tokens)!;
      const row = await adapter.update<T>({ ...d, where, update: hashUpdate(d.model, d.update, tokens) });
      return restore(d.model, row, tokens);
    },
    updateMany: (d) => {
      const tokens: Tokens = new Map();
      return adapter.updateMany({
        ...d,
        where: hashWhere(d.model, d.where, tokens)!,
        update: hashUpdate(d.model, d.update, tokens),
      });
    },
    delete: (d) => adapter.delete({ ...d, where: hashWhere(d.model, d.where, new Map())! }),
    deleteMany: (d) => adapter.deleteMany({ ...d, where: hashWhere(d.model, d.where, new Map())! }),
    consumeOne: async (d) => {
      const tokens: Tokens = new Map();
      return restore(d.model, await adapter.consumeOne({ ...d, where: hashWhere(d.model, d.where, tokens)! }), tokens);
    },
    incrementOne: async (d) => {
      const tokens: Tokens = new Map();
      const where = hashWhere(d.model, d.where, tokens)!;
      const set = d.set ? hashUpdate(d.model, d.set, tokens) : d.set;
      return restore(d.model, await adapter.incrementOne({ ...d, where, set }), tokens);
    },
    // Work inside a transaction goes through the same rules.
    transaction: (callback) => adapter.transaction((trx) => callback(withHashedSessionTokens(trx as DBAdapter) as typeof trx)),
  };
  return wrapped;
}

/** better-auth's `database` option: the given adapter (prismaAdapter(...)), with session tokens hashed at rest. */
export function hashedSessionTokens(adapter: DBAdapterInstance): DBAdapterInstance {
  return (options) => withHashedSessionTokens(adapter(options));
}
