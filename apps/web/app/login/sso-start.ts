/**
 * How the sign-in page starts single sign-on: better-auth's social sign-in, which answers with the
 * provider's authorization URL (its generic OAuth plugin has no endpoint of its own since 1.7). A failed
 * sign-in comes back to the sign-in page, which says why in words (sso-errors.ts).
 */
export const SSO_START_PATH = "/api/auth/sign-in/social";

export const ssoStartBody = (providerId: string, next = "/") => ({
  provider: providerId,
  callbackURL: next,
  errorCallbackURL: "/login",
});
