import { describe, expect, it } from "vitest";
import { envProblems } from "../server/check-env";

describe("envProblems (checked when the web app starts)", () => {
  it("names a bad TRANCHE_LOG_RETENTION_BYTES in one line", () => {
    const problems = envProblems({ TRANCHE_LOG_RETENTION_BYTES: "12 bytes" });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^TRANCHE_LOG_RETENTION_BYTES must be a size from 1 MiB to 1024 MiB .*not '12 bytes'$/);
  });

  it("accepts a good size and the default", () => {
    expect(envProblems({ TRANCHE_LOG_RETENTION_BYTES: "64MiB" })).toEqual([]);
    expect(envProblems({})).toEqual([]);
  });
});
