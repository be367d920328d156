import { describe, expect, it } from "vitest";
import { extendSessionInput, protectionWords, sshInstructions, startSessionInput } from "../src/index";

const NOW = Date.parse("2026-12-02T10:00:00Z");
const at = (s: number) => new Date(NOW + s * 1000).toISOString();

describe("session words", () => {
  it("says how long a session stays protected in plain words, to the minute", () => {
    expect(protectionWords(at(2 * 3600 + 10 * 60 + 59), NOW)).toBe("protected for 2 h 10 min more");
    expect(protectionWords(at(45), NOW)).toBe("protected for 45 s more");
    expect(protectionWords(at(-1), NOW)).toBe("no longer protected: it may be preempted");
    expect(protectionWords(null, NOW)).toBe("not protected: it may be preempted at any moment");
  });

  it("prints SSH instructions once the session's server has reported where it listens", () => {
    const s = { host: "gpu-7", port: 41234, dir: "/ckpt/sessions/u1", server: "SHELL" as const };
    expect(sshInstructions(12, s)).toEqual([
      "ssh -N -L 8022:127.0.0.1:41234 gpu-7",
      "then open http://localhost:8022/ with the session's token, which is in /ckpt/sessions/u1/.tranche-session-12.token (readable by you only)",
    ]);
    expect(sshInstructions(12, { ...s, server: "JUPYTER" })[1]).toContain("http://localhost:8888/api/v1/sessions/12/proxy/");
    expect(sshInstructions(12, { ...s, port: null })).toEqual([]);
  });
});

describe("session input", () => {
  it("defaults to one GPU and the shell server, and refuses what a session does not take", () => {
    expect(startSessionInput.parse({ cluster: "h100", budget: "lab/a", minRuntime: "4h" })).toEqual({
      cluster: "h100",
      budget: "lab/a",
      gpus: 1,
      minRuntime: 14_400,
      jupyter: false,
    });
    const r = startSessionInput.safeParse({ cluster: "h100", budget: "lab/a", minRuntime: "4h", command: "x" });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toContain("unknown field 'command' in a session request");
  });

  it("takes an extension as a positive duration", () => {
    expect(extendSessionInput.parse({ id: "12", by: "1h30m" })).toEqual({ id: 12, by: 5400 });
    expect(extendSessionInput.safeParse({ id: 12, by: 0 }).error?.issues[0]?.message).toBe(
      "by must be positive: how much longer to protect the session",
    );
  });
});
