import { describe, expect, it } from "vitest";
import { webConfigProblem } from "../server/start-config";

describe("webConfigProblem (checked when the web app starts)", () => {
  it("names a bad TRANCHE_LOG_RETENTION_BYTES in one line", () => {
    expect(webConfigProblem({ TRANCHE_LOG_RETENTION_BYTES: "12 bytes" })).toMatch(
      /^TRANCHE_LOG_RETENTION_BYTES must be a size from 1 MiB to 1024 MiB .*not '12 bytes'$/,
    );
  });

  it("accepts a good size and the default", () => {
    expect(webConfigProblem({ TRANCHE_LOG_RETENTION_BYTES: "64MiB" })).toBeNull();
    expect(webConfigProblem({})).toBeNull();
  });
});
