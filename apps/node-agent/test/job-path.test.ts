import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { pathForOtherUser } from "../src/job-path";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("a job's PATH when it runs as another user", () => {
  it("keeps the folders others may enter, in order, and drops those behind a closed folder, missing ones and relative ones", () => {
    const d = mkdtempSync(join(tmpdir(), "tranche-path-"));
    dirs.push(d);
    chmodSync(d, 0o755);
    const open = join(d, "open", "bin");
    const closed = join(d, "home", ".cargo", "bin");
    mkdirSync(open, { recursive: true });
    mkdirSync(closed, { recursive: true });
    chmodSync(join(d, "open"), 0o755);
    chmodSync(open, 0o755);
    chmodSync(join(d, "home"), 0o700); // as /root is
    const path = [closed, "/usr/bin", open, join(d, "missing"), "bin", "", "/bin"].join(":");
    expect(pathForOtherUser(path)).toBe(["/usr/bin", open, "/bin"].join(":"));
  });

  it("falls back to the system folders when none is left", () => {
    expect(pathForOtherUser("relative/bin")).toBe("/usr/local/bin:/usr/bin:/bin");
  });
});
