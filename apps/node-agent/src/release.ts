import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The release an agent runs: the commit of the checkout its code comes from (first 12 hex digits), or
 * null outside a git checkout. Every build says "0.1.0", so without it an operator upgrading hosts one
 * by one could not tell an upgraded agent from an old one on the nodes page (operator guide, Upgrade).
 * Read from the files, not by running git: the hosts need not have git installed.
 */
export function sourceRelease(from = dirname(fileURLToPath(import.meta.url))): string | null {
  try {
    const gitDir = findGitDir(resolve(from));
    if (gitDir === null) return null;
    const head = readFileSync(join(gitDir, "HEAD"), "utf8").trim();
    const ref = /^ref: (.+)$/.exec(head)?.[1];
    const commit = ref === undefined ? head : refCommit(gitDir, ref);
    return commit !== null && /^[0-9a-f]{40,64}$/.test(commit) ? commit.slice(0, 12) : null;
  } catch {
    return null;
  }
}

/** The .git folder above `dir` (a worktree's `.git` file points at its own). */
function findGitDir(dir: string): string | null {
  for (let d = dir; ; d = dirname(d)) {
    const dotGit = join(d, ".git");
    if (existsSync(dotGit)) {
      if (statSync(dotGit).isDirectory()) return dotGit;
      const target = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, "utf8"))?.[1]?.trim();
      return target === undefined ? null : isAbsolute(target) ? target : resolve(d, target);
    }
    if (d === dirname(d)) return null;
  }
}

/** A branch's commit: its loose ref, else packed-refs (in the common folder for a worktree). */
function refCommit(gitDir: string, ref: string): string | null {
  const common = existsSync(join(gitDir, "commondir"))
    ? resolve(gitDir, readFileSync(join(gitDir, "commondir"), "utf8").trim())
    : gitDir;
  for (const base of [gitDir, common]) {
    const loose = join(base, ref);
    if (existsSync(loose)) return readFileSync(loose, "utf8").trim();
  }
  for (const base of [gitDir, common]) {
    const packed = join(base, "packed-refs");
    if (!existsSync(packed)) continue;
    for (const line of readFileSync(packed, "utf8").split("\n")) {
      const [commit, name] = line.split(" ");
      if (name === ref && commit) return commit;
    }
  }
  return null;
}
