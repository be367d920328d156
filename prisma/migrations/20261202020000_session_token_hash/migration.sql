-- Session tokens are kept hashed at rest (apps/web/server/session-token-hash.ts): the row holds the
-- hex sha256 of the token a cookie carries. Sessions opened before this keep working: their cookies
-- still carry the token, which is hashed on every lookup.
UPDATE "session" SET token = encode(sha256(convert_to(token, 'UTF8')), 'hex');
