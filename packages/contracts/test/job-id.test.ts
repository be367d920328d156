import { describe, expect, it } from "vitest";
import { fieldIssues, issuesSentence, jobIdInput } from "../src";

// Job ids in URLs (/api/v1/jobs/<id>), tRPC and CLI arguments (sent on in the URL) are read here.
describe("a job id from a URL or a CLI argument", () => {
  const id = (v: unknown) => {
    const r = jobIdInput.safeParse({ id: v });
    return r.success ? r.data.id : issuesSentence(fieldIssues(r.error));
  };
  it("is plain decimal digits", () => {
    expect(id("12")).toBe(12);
    expect(id("2147483647")).toBe(2_147_483_647);
    expect(id(12)).toBe(12);
  });
  it("refuses what Number() would read as another number, naming the id", () => {
    for (const v of ["1e3", "0x10", "0b11", "0o7", " 12", "12 ", "+5", "-1", "1.0", "", "Infinity", "１２"])
      expect(id(v), v).toBe(`id: job id must be a whole number written in digits (such as 42), got '${v}'`);
    expect(id("0")).toBe("id: job id must be positive");
    expect(id("2147483648")).toBe("id: job id must be at most 2,147,483,647");
    expect(id(1.5)).toBe("id: job id must be a whole number");
    expect(id(undefined)).toBe("id: job id is required");
    expect(id(null)).toBe("id: job id must be a number");
  });
});
