import { createServer, type Server } from "node:http";

/** Who the fake provider says signs in next: its subject, e-mail and whether it vouches for the e-mail. */
export interface IdpPerson {
  sub: string;
  email: string;
  emailVerified: boolean;
  name?: string;
}

/**
 * A minimal OpenID provider on a free local port: discovery, a token endpoint that takes any code and
 * a userinfo endpoint answering with whoever `next` names. Enough for better-auth's code flow (the
 * listed signing algorithm makes it an OpenID provider, whose `sub` names the account); it signs
 * nothing (the discovery names no keys), which these tests of account linking do not need.
 */
export async function startFakeIdp(): Promise<{ issuer: string; next: (p: IdpPerson) => void; close: () => Promise<void> }> {
  let person: IdpPerson | null = null;
  let issued = 0;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://idp");
    const send = (body: unknown) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === "/.well-known/openid-configuration")
      return send({
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        userinfo_endpoint: `${issuer}/userinfo`,
        id_token_signing_alg_values_supported: ["RS256"],
      });
    if (url.pathname === "/token") return send({ access_token: `at-${++issued}`, token_type: "Bearer", expires_in: 3600 });
    if (url.pathname === "/userinfo" && person)
      return send({
        sub: person.sub,
        email: person.email,
        email_verified: person.emailVerified,
        name: person.name ?? "SSO person",
      });
    res.writeHead(404).end();
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    issuer,
    next: (p) => (person = p),
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}
