import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// The README's Configuration and "What a job sees" tables against the TRANCHE_* variables the product's
// code reads or sets: a variable added to the code without a line in the README (or a README line for a
// variable nothing uses any more) fails here.
const root = join(import.meta.dirname, "..", "..");
const NAME = /\bTRANCHE_[A-Z0-9_]*[A-Z0-9]\b/g;

/** Product source: tracked code outside tests, e2e journeys and benchmarks. */
function productSources(): string[] {
  return execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" })
    .split("\0")
    .filter((f) => /\.(ts|tsx|mjs|js)$/.test(f))
    .filter((f) => !/(^|\/)(test|e2e|bench)\//.test(f) && !/\.test\.|\.spec\./.test(f));
}

function namesInCode(): Set<string> {
  const names = new Set<string>();
  for (const f of productSources()) for (const m of readFileSync(join(root, f), "utf8").matchAll(NAME)) names.add(m[0]);
  return names;
}

/**
 * Names in the README's tables. A cell may shorten names of one family after the first, as in
 * "`TRANCHE_OIDC_ISSUER`, `_CLIENT_ID`": those are read as TRANCHE_OIDC_CLIENT_ID.
 */
export function namesInReadme(readme: string): Set<string> {
  const names = new Set<string>();
  for (const line of readme.split("\n")) {
    if (!line.startsWith("|")) continue;
    const first = line.split("|")[1] ?? "";
    let family: string | null = null;
    for (const m of first.matchAll(/`(TRANCHE_[A-Z0-9_]+|_[A-Z0-9_]+)`/g)) {
      const name = m[1]!;
      if (name.startsWith("TRANCHE_")) {
        names.add(name);
        family = name.split("_").slice(0, 2).join("_");
      } else if (family) names.add(`${family}${name}`);
    }
  }
  return names;
}

describe("the README's variable tables", () => {
  const readme = readFileSync(join(root, "README.md"), "utf8");

  it("reads shortened names in a cell as members of the first name's family", () => {
    const names = namesInReadme("| `TRANCHE_OIDC_ISSUER`, `_CLIENT_ID` | unset | sign-on |\n| `TRANCHE_X` / `TRANCHE_Y` | | |");
    expect([...names].sort()).toEqual(["TRANCHE_OIDC_CLIENT_ID", "TRANCHE_OIDC_ISSUER", "TRANCHE_X", "TRANCHE_Y"]);
  });

  it("list every TRANCHE_* variable the code reads or hands to jobs", () => {
    const code = namesInCode();
    // The scan must see the code: a few variables every version reads.
    expect(code).toContain("TRANCHE_DEMO");
    expect(code).toContain("TRANCHE_JOB_ID");
    const documented = namesInReadme(readme);
    expect([...code].filter((n) => !documented.has(n)).sort()).toEqual([]);
  });

  it("list no variable the code no longer knows", () => {
    const code = namesInCode();
    expect([...namesInReadme(readme)].filter((n) => !code.has(n)).sort()).toEqual([]);
  });
});
