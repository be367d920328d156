import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { commandLine, scriptCommand, shellQuote } from "../src/command-line";

// What /bin/sh -c makes of the stored command (as the node agent runs it).
const sh = (command: string) => execFileSync("/bin/sh", ["-c", command], { encoding: "utf8" });

describe("commandLine", () => {
  it("keeps argv exactly: a bash -c script after -- runs as typed", () => {
    const argv = ["bash", "-c", 'for i in 1 2; do echo "n=$i"; done'];
    const cmd = commandLine(argv);
    expect(cmd).toBe(`bash -c 'for i in 1 2; do echo "n=$i"; done'`);
    expect(sh(cmd)).toBe("n=1\nn=2\n");
  });

  it("quotes quotes, spaces and empty arguments so the shell gives them back unchanged", () => {
    const argv = ["printf", "%s|", "it's", "a b", "", "$HOME", "*"];
    expect(sh(commandLine(argv))).toBe("it's|a b||$HOME|*|");
    expect(shellQuote("train.py")).toBe("train.py");
  });

  it("runs a script file with the interpreter of its #! line, keeping its lines", () => {
    const cmd = scriptCommand('#!/bin/bash\nfor i in 1 2; do\n  echo "line $i"\ndone\n');
    expect(cmd).toBe(`/bin/bash -c '#!/bin/bash\nfor i in 1 2; do\n  echo "line $i"\ndone\n'`);
    expect(sh(cmd)).toBe("line 1\nline 2\n");
    expect(sh(scriptCommand("echo plain\necho sh\n"))).toBe("plain\nsh\n");
  });

  it("takes a single argument as a shell command line", () => {
    expect(commandLine(["echo a && echo b"])).toBe("echo a && echo b");
    expect(sh(commandLine(["echo a && echo b"]))).toBe("a\nb\n");
  });
});
