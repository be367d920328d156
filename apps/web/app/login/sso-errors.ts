/**
 * What the sign-in page says when single sign-on comes back with an error (better-auth sends the
 * browser to /login?error=CODE). The codes are better-auth's; a person reads only the sentence.
 */
export function ssoErrorText(code: string | undefined, provider: string): string | null {
  if (!code) return null;
  if (code === "account_not_linked")
    return (
      `This e-mail already belongs to an account here, and signing in through ${provider} does not open an existing account. ` +
      "Sign in with your e-mail and password instead; if you have no password, ask an admin for a set-password link."
    );
  return `Signing in through ${provider} did not work. Try again, or sign in with your password; if it keeps failing, tell an admin.`;
}
