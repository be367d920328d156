import { describe, expect, it } from "vitest";
import { ssoErrorText } from "../app/login/sso-errors";

describe("the sign-in page after a single sign-on that failed", () => {
  it("tells a person whose e-mail already has an account to use their password, in words", () => {
    const text = ssoErrorText("account_not_linked", "Lab SSO")!;
    expect(text).toContain("already belongs to an account here");
    expect(text).toContain("Sign in with your e-mail and password");
    expect(text).not.toMatch(/account_not_linked|_/);
  });

  it("says any other failure in words, never its code, and nothing without one", () => {
    const text = ssoErrorText("unable_to_get_user_info", "Lab SSO")!;
    expect(text).toContain("Signing in through Lab SSO did not work");
    expect(text).not.toContain("unable_to_get_user_info");
    expect(ssoErrorText(undefined, "Lab SSO")).toBeNull();
  });
});
