import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "@tranche/db/setup";
import { startOwnPostgres } from "@tranche/db/testing";

// startOwnPostgres names its folder .data/test-<label>-<pid>; the server keeps its password beside it.
const passwordFileOf = (label: string) => join(repoRoot(), ".data", `test-${label}-${process.pid}.password`);

describe("a test's own PostgreSQL, disposed", () => {
  it("removes the password file it made, with its data folder", async () => {
    const file = passwordFileOf("own-dispose");
    const own = await startOwnPostgres("own-dispose");
    expect(existsSync(file)).toBe(true);
    await own.dispose();
    expect(existsSync(file)).toBe(false);
    expect(existsSync(file.replace(/\.password$/, ""))).toBe(false);
  });

  it("leaves a password file that was there before it started", async () => {
    const file = passwordFileOf("own-keep");
    mkdirSync(join(repoRoot(), ".data"), { recursive: true });
    writeFileSync(file, "someone-elses-password\n", { mode: 0o600 });
    try {
      const own = await startOwnPostgres("own-keep");
      await own.dispose();
      expect(readFileSync(file, "utf8")).toBe("someone-elses-password\n");
    } finally {
      rmSync(file, { force: true });
    }
  });
});
