import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// npm's registry holds an unrelated package named `tranche`. Run outside a clone of this repository,
// `npx tranche login --token trn_...` would download it and hand it the token; so no page a person reads
// may tell them to run it that way, and the README must say where the CLI does come from.
const root = join(import.meta.dirname, "..", "..");

/** Tracked documentation and the web app's pages: what people copy commands from. */
function pagesPeopleRead(): string[] {
  return execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" })
    .split("\0")
    .filter((f) => /\.md$/.test(f) || /^apps\/web\/.*\.tsx$/.test(f))
    .filter((f) => !/(^|\/)(test|e2e)\//.test(f));
}

/** `npx tranche` or `npm install tranche` as a command (not inside a sentence warning against it). */
const REGISTRY_COMMAND = /^\s*(?:\$\s*)?(?:npx(?! --no\b) tranche\b|npm (?:install|i) (?:-g )?tranche\b)/m;

describe("the CLI's install instructions", () => {
  it("never tell anyone to fetch `tranche` from npm's registry", () => {
    const offending = pagesPeopleRead().filter((f) => REGISTRY_COMMAND.test(readFileSync(join(root, f), "utf8")));
    expect(offending).toEqual([]);
  });

  it("say in the README how to put the repository's CLI on the PATH, and warn about the registry's package", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    expect(readme).toContain('ln -s "$PWD/apps/cli/bin/tranche.mjs" ~/.local/bin/tranche');
    expect(readme).toMatch(/Never `npx tranche` or `npm install tranche` elsewhere/);
  });
});
