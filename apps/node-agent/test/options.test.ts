import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { parseAgentOptions } from "../src/options";

const dir = mkdtempSync(join(tmpdir(), "agent-options-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const server = ["--server", "http://cp:3000"];

describe("the agent's options", () => {
  it("refuses an unknown option, naming it", () => {
    expect(() => parseAgentOptions([...server, "--cluster", "h100"], {})).toThrow("Unknown option '--cluster'");
  });

  it("--help prints the options and the notes under them, not the code's own comments", () => {
    const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));
    const help = execFileSync(process.execPath, ["--import", "tsx", main, "--help"], { encoding: "utf8" });
    expect(help).toContain("  --help                        this text");
    expect(help).toContain("Stopping the agent (SIGTERM/SIGINT) leaves job processes running");
    // Comments further down main.ts, for whoever reads the code.
    expect(help).not.toContain("Job isolation");
    expect(help).not.toContain("Last resort");
  }, 60_000);

  it("needs a control-plane URL, except for --help", () => {
    expect(() => parseAgentOptions([], {})).toThrow("--server must be the control plane's URL");
    expect(parseAgentOptions(["--help"], {}).mode).toBe("help");
  });

  it("names a bad number and contradictory modes", () => {
    expect(() => parseAgentOptions([...server, "--fake-gpus", "eight"], {})).toThrow(
      "--fake-gpus must be a whole number from 1 to 4096, got 'eight'",
    );
    expect(() => parseAgentOptions([...server, "--enroll-only", "--dry-run"], {})).toThrow("not both");
  });

  it("reads several tokens from TRANCHE_ENROLLMENT_TOKEN, one per fake node in order", () => {
    const o = parseAgentOptions([...server, "--fake-gpus", "8", "--fake-nodes", "3", "--enroll-only"], {
      TRANCHE_ENROLLMENT_TOKEN: "tet_a, tet_b tet_c",
    });
    expect(o.mode).toBe("enroll-only");
    expect([...o.tokens]).toEqual([
      ["fake-0", "tet_a"],
      ["fake-1", "tet_b"],
      ["fake-2", "tet_c"],
    ]);
    expect(o.tokenSource).toBe("TRANCHE_ENROLLMENT_TOKEN");
  });

  it("reads TRANCHE_ENROLLMENT_TOKEN_FILE by node name, and names a missing file", () => {
    const file = join(dir, "tokens");
    writeFileSync(file, "# issued today\nhost-b tet_b\nhost-a tet_a\n");
    const o = parseAgentOptions([...server, "--node-name", "host-a"], { TRANCHE_ENROLLMENT_TOKEN_FILE: file });
    expect(o.tokens.get("host-a")).toBe("tet_a");
    expect(() => parseAgentOptions(server, { TRANCHE_ENROLLMENT_TOKEN_FILE: join(dir, "nope") })).toThrow(
      `TRANCHE_ENROLLMENT_TOKEN_FILE ${join(dir, "nope")} does not exist`,
    );
  });

  it("lets the flags win over the environment, and treats empty variables as unset", () => {
    const o = parseAgentOptions([...server, "--node-name", "h", "--enrollment-token", "tet_flag"], {
      TRANCHE_ENROLLMENT_TOKEN: "tet_env",
    });
    expect(o.tokens.get("h")).toBe("tet_flag");
    expect(o.tokenSource).toBe("--enrollment-token");
    const none = parseAgentOptions([...server, "--node-name", "h"], {
      TRANCHE_ENROLLMENT_TOKEN: "",
      TRANCHE_ENROLLMENT_TOKEN_FILE: "",
    });
    expect(none.tokens.size).toBe(0);
    expect(none.tokenSource).toBe("none");
  });

  it("takes a shared checkpoint root from --checkpoint-root or TRANCHE_CHECKPOINT_ROOT, refusing a relative or missing folder by name", () => {
    expect(parseAgentOptions([...server, "--checkpoint-root", dir], {}).checkpointRoot).toBe(dir);
    expect(parseAgentOptions(server, { TRANCHE_CHECKPOINT_ROOT: dir }).checkpointRoot).toBe(dir);
    expect(parseAgentOptions(server, { TRANCHE_CHECKPOINT_ROOT: "" }).checkpointRoot).toBeUndefined();
    expect(() => parseAgentOptions([...server, "--checkpoint-root", "ckpt"], {})).toThrow(
      "--checkpoint-root must be an absolute path (the same on every node), got 'ckpt'",
    );
    expect(() => parseAgentOptions(server, { TRANCHE_CHECKPOINT_ROOT: join(dir, "not-mounted") })).toThrow(
      `TRANCHE_CHECKPOINT_ROOT ${join(dir, "not-mounted")} is not an existing folder`,
    );
  });

  it("takes where sessions are reached from --session-host or TRANCHE_SESSION_HOST, refusing anything but a host or an address", () => {
    expect(parseAgentOptions([...server, "--session-host", "gpu-7.lab.example"], {}).sessionHost).toBe("gpu-7.lab.example");
    expect(parseAgentOptions(server, { TRANCHE_SESSION_HOST: "10.0.0.7" }).sessionHost).toBe("10.0.0.7");
    expect(parseAgentOptions(server, {}).sessionHost).not.toBe("");
    expect(() => parseAgentOptions([...server, "--session-host", "evil.example/x@y"], {})).toThrow(
      "--session-host must be a host name or an IP address, got 'evil.example/x@y'",
    );
  });
});
