import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { assertPostgresUserCanReach } from "../src/embedded-postgres";
import { ConfigError } from "../src/errors";

describe("the embedded PostgreSQL's permission check", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("names the folder the postgres user cannot enter and says how to fix it", () => {
    dir = mkdtempSync(join(tmpdir(), "tranche-perm-"));
    const locked = join(dir, "home");
    mkdirSync(join(locked, "checkout"), { recursive: true });
    chmodSync(dir, 0o755);
    chmodSync(locked, 0o700);
    expect(() => assertPostgresUserCanReach([join(locked, "checkout")])).toThrow(ConfigError);
    expect(() => assertPostgresUserCanReach([join(locked, "checkout")])).toThrow(`cannot enter ${locked} (mode 700)`);
  });

  it("accepts a path every user may traverse", () => {
    dir = mkdtempSync(join(tmpdir(), "tranche-perm-"));
    chmodSync(dir, 0o755);
    mkdirSync(join(dir, "open"), { mode: 0o755 });
    expect(() => assertPostgresUserCanReach([join(dir!, "open")])).not.toThrow();
  });
});
