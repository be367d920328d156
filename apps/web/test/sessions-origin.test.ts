import { afterEach, describe, expect, it, vi } from "vitest";
import { register } from "../instrumentation";
import { sessionsOrigin } from "../server/sessions-origin";
import { webConfigProblem } from "../server/start-config";

// register() also makes SIGTERM and SIGINT end the process within seconds (shutdown.integration.test.ts): not
// in this test's worker, which the test runner stops as it likes.
vi.mock("../server/shutdown", () => ({ exitPromptlyOnSignal: () => {} }));

describe("where interactive sessions are served (TRANCHE_SESSIONS_ORIGIN)", () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  });

  it("takes an origin with a host of its own, normalised", () => {
    const lab = { TRANCHE_PUBLIC_URL: "https://tranche.lab.example" };
    expect(sessionsOrigin({ ...lab, TRANCHE_SESSIONS_ORIGIN: "https://Sessions.Lab.Example/" })).toBe(
      "https://sessions.lab.example",
    );
    expect(sessionsOrigin({ ...lab, TRANCHE_SESSIONS_ORIGIN: "https://lab-sessions.example:8443" })).toBe(
      "https://lab-sessions.example:8443",
    );
  });

  it("defaults, for an app on 127.0.0.1 or localhost, to the other name on the same port: two sites, no DNS work", () => {
    expect(sessionsOrigin({})).toBe("http://localhost:3000");
    expect(sessionsOrigin({ TRANCHE_PUBLIC_URL: "http://127.0.0.1:3100" })).toBe("http://localhost:3100");
    expect(sessionsOrigin({ TRANCHE_PUBLIC_URL: "http://localhost:8080/" })).toBe("http://127.0.0.1:8080");
  });

  it("is unset for any other app address: sessions are then not served, never served from the app's origin", () => {
    expect(sessionsOrigin({ TRANCHE_PUBLIC_URL: "https://tranche.lab.example" })).toBeNull();
    expect(sessionsOrigin({ TRANCHE_PUBLIC_URL: "https://tranche.lab.example", TRANCHE_SESSIONS_ORIGIN: " " })).toBeNull();
  });

  it("stops the start with one line naming what is wrong with a malformed value", () => {
    const app = { TRANCHE_PUBLIC_URL: "https://tranche.lab.example" };
    const problem = (v: string, env: Record<string, string> = app) => webConfigProblem({ ...env, TRANCHE_SESSIONS_ORIGIN: v });
    expect(problem("sessions.lab.example")).toBe(
      "TRANCHE_SESSIONS_ORIGIN must be an origin such as https://sessions.lab.example, not 'sessions.lab.example'",
    );
    expect(problem("ftp://sessions.lab.example")).toBe(
      "TRANCHE_SESSIONS_ORIGIN must start with https:// (or http://), not 'ftp://sessions.lab.example'",
    );
    expect(problem("https://sessions.lab.example/jupyter")).toBe(
      "TRANCHE_SESSIONS_ORIGIN must be an origin alone (scheme, host and port), with no path, query or user: 'https://sessions.lab.example/jupyter'",
    );
    expect(problem("https://tranche.lab.example:8443")).toBe(
      "TRANCHE_SESSIONS_ORIGIN must name another host than TRANCHE_PUBLIC_URL (tranche.lab.example): browsers share cookies across ports, so a port of its own does not set sessions apart",
    );
    expect(problem("http://sessions.lab.example")).toBe(
      "TRANCHE_SESSIONS_ORIGIN must use https:// as TRANCHE_PUBLIC_URL does, not 'http://sessions.lab.example'",
    );
    expect(problem("http://127.0.0.1:3001", {})).toMatch(/^TRANCHE_SESSIONS_ORIGIN must name another host than/);
    expect(problem("https://sessions.lab.example")).toBeNull();
  });

  it("warns once at start that sessions are not served when the app's address gives no default", async () => {
    vi.stubEnv("NEXT_RUNTIME", "nodejs");
    vi.stubEnv("TRANCHE_PUBLIC_URL", "https://tranche.lab.example");
    vi.stubEnv("TRANCHE_SESSIONS_ORIGIN", "");
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    await register();
    expect(warn.mock.calls).toEqual([
      [
        "tranche: interactive sessions are not served until TRANCHE_SESSIONS_ORIGIN names a host of their own (see docs/admin-guide.md)",
      ],
    ]);
  });
});
