import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sourceRelease } from "../src/release";

// Every agent says "0.1.0"; the release commit is what tells an upgraded host from an old one.
describe("the agent's release", () => {
  const root = mkdtempSync(join(tmpdir(), "tranche-release-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const A = "0123456789abcdef0123456789abcdef01234567";
  const B = "fedcba9876543210fedcba9876543210fedcba98";

  /** A checkout at `dir` whose .git holds `files`; answers the folder the agent's code would be in. */
  const checkout = (dir: string, files: Record<string, string>) => {
    for (const [name, text] of Object.entries(files)) {
      const path = join(root, dir, ".git", name);
      mkdirSync(join(path, ".."), { recursive: true });
      writeFileSync(path, text);
    }
    const code = join(root, dir, "apps", "node-agent", "src");
    mkdirSync(code, { recursive: true });
    return code;
  };

  it("reads a branch's commit from its loose ref or from packed-refs, and a detached HEAD as it is", () => {
    expect(sourceRelease(checkout("loose", { HEAD: "ref: refs/heads/main\n", "refs/heads/main": `${A}\n` }))).toBe(
      A.slice(0, 12),
    );
    expect(
      sourceRelease(checkout("packed", { HEAD: "ref: refs/heads/main\n", "packed-refs": `# pack-refs\n${B} refs/heads/main\n` })),
    ).toBe(B.slice(0, 12));
    expect(sourceRelease(checkout("detached", { HEAD: `${B}\n` }))).toBe(B.slice(0, 12));
  });

  it("follows a worktree's .git file to its own folder and the common one", () => {
    checkout("main-repo", { HEAD: "ref: refs/heads/main\n", "packed-refs": `${A} refs/heads/feature\n` });
    const wt = join(root, "main-repo", ".git", "worktrees", "wt");
    mkdirSync(wt, { recursive: true });
    writeFileSync(join(wt, "HEAD"), "ref: refs/heads/feature\n");
    writeFileSync(join(wt, "commondir"), "../..\n");
    const code = join(root, "wt", "apps", "node-agent", "src");
    mkdirSync(code, { recursive: true });
    writeFileSync(join(root, "wt", ".git"), `gitdir: ${wt}\n`);
    expect(sourceRelease(code)).toBe(A.slice(0, 12));
  });

  it("is null outside a checkout or where HEAD names nothing readable", () => {
    const bare = join(root, "no-git", "src");
    mkdirSync(bare, { recursive: true });
    // tmpdir is not inside a git checkout on any machine the tests run on; a checkout above it would name a commit.
    expect(sourceRelease(bare)).toBeNull();
    expect(sourceRelease(checkout("dangling", { HEAD: "ref: refs/heads/gone\n" }))).toBeNull();
    expect(sourceRelease(checkout("garbage", { HEAD: "not a commit\n" }))).toBeNull();
  });

  it("names this checkout's commit when the agent runs from it", () => {
    let head: string | null;
    try {
      head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: __dirname, encoding: "utf8" }).trim();
    } catch {
      head = null; // a copy without git: nothing to compare with
    }
    expect(sourceRelease(join(__dirname, "..", "src"))).toBe(head === null ? null : head.slice(0, 12));
  });
});
