import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { saveConfig } from "../src/client";

describe("the CLI's config file", () => {
  const dir = mkdtempSync(join(tmpdir(), "tranche-cli-config-"));
  const before = process.env.TRANCHE_CONFIG;
  afterEach(() => {
    if (before === undefined) delete process.env.TRANCHE_CONFIG;
    else process.env.TRANCHE_CONFIG = before;
    rmSync(dir, { recursive: true, force: true });
  });

  it("holds the token readable by its owner only, also when the file already existed readable by others", () => {
    const file = join(dir, "config.json");
    writeFileSync(file, "{}\n", { mode: 0o644 });
    expect(statSync(file).mode & 0o777).toBe(0o644);
    process.env.TRANCHE_CONFIG = file;
    saveConfig({ url: "http://127.0.0.1:3000", token: "trn_secret" });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
