import { describe, expect, it } from "vitest";
import { loginPath, returnPath } from "../app/login/return-path";

describe("the page a person returns to after signing in", () => {
  it("follows a path of this app, query included", () => {
    expect(returnPath("/jobs/12")).toBe("/jobs/12");
    expect(returnPath("/queue/h100?tab=running")).toBe("/queue/h100?tab=running");
    expect(loginPath("/jobs/12")).toBe("/login?next=%2Fjobs%2F12");
  });

  it("never leaves the app: other sites, protocol-relative and backslash tricks go to the overview", () => {
    for (const bad of [
      "https://evil.example/",
      "//evil.example/x",
      "/\\evil.example",
      "/jobs\\..\\@evil.example",
      "javascript:alert(1)",
      "/x\ny",
      "",
      undefined,
      null,
      42,
      ["/jobs/1"],
      "/" + "a".repeat(2001),
    ])
      expect(returnPath(bad), String(bad)).toBe("/");
  });

  it("does not send a person back to the sign-in page, and asks for no return to the overview", () => {
    expect(returnPath("/login")).toBe("/");
    expect(returnPath("/login?next=/jobs/1")).toBe("/");
    expect(loginPath("/")).toBe("/login");
    expect(loginPath(null)).toBe("/login");
  });
});
