import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");

// The patterns are built, not written, so this file does not match itself.
// The second catches the folder spelled as path.join arguments.
const up = ".".repeat(2);
const patterns = [`${up}/shared`, `"${up}", "shared"`];

function trackedFiles(): string[] {
  return execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" })
    .split("\0")
    .filter((f) => f && !f.startsWith(".git/"));
}

describe("the repository stands alone", () => {
  it("has no tracked file that points at a folder beside the checkout", () => {
    const files = trackedFiles();
    // A clone with no file list would pass vacuously: make sure git answered.
    expect(files).toContain("package.json");
    const offenders: string[] = [];
    for (const file of files) {
      const path = join(root, file);
      if (!existsSync(path) || !statSync(path).isFile()) continue;
      const text = readFileSync(path, "latin1");
      for (const pattern of patterns) {
        const at = text.indexOf(pattern);
        if (at >= 0) offenders.push(`${file}:${text.slice(0, at).split("\n").length}: ${pattern}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("ships the public traces the simulator's scenarios read, with their licences", () => {
    const traces = join(root, "data", "traces");
    for (const f of [
      "README.md",
      "LICENSE-pcs",
      "LICENSE-philly",
      "LICENSE-helios",
      "philly_per_vc_jobs.csv.gz",
      "philly_vc_node_count.csv",
      "helios_15k_jobs.csv",
      "helios_venus_cluster_gpu_number.csv",
    ]) {
      expect(existsSync(join(traces, f)), f).toBe(true);
    }
  });
});
