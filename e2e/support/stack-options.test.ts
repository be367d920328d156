import { describe, expect, it } from "vitest";
import { e2ePorts, stackDataDir } from "./stack-options";

describe("e2e stack options", () => {
  it("takes an absolute --data as given, a relative one under the repository root", () => {
    expect(stackDataDir("/repo", "/tmp/x")).toBe("/tmp/x");
    expect(stackDataDir("/repo", ".data/e2e-postgres")).toBe("/repo/.data/e2e-postgres");
    expect(stackDataDir("/repo", "tmp/x")).toBe("/repo/tmp/x");
  });

  it("derives the first-start stack's ports from E2E_PORT and E2E_PG_PORT, so one setting moves both stacks", () => {
    expect(e2ePorts({})).toEqual({ web: 3100, pg: 54349, firstStartWeb: 3107, firstStartPg: 54369 });
    expect(e2ePorts({ E2E_PORT: "3213", E2E_PG_PORT: "54403" })).toEqual({
      web: 3213,
      pg: 54403,
      firstStartWeb: 3220,
      firstStartPg: 54423,
    });
    expect(() => e2ePorts({ E2E_PG_PORT: "54x" })).toThrow("E2E_PG_PORT=54x is not a port (a whole number from 1 to 65535)");
  });
});
