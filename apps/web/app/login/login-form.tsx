"use client";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { authClient } from "../../lib/auth-client";
import { SSO_START_PATH, ssoStartBody } from "./sso-start";

export function LoginForm({
  demo,
  sso,
  ssoError = null,
  next = "/",
}: {
  demo: { email: string; what: string }[];
  sso: { providerId: string; name: string } | null;
  /** why the last single sign-on came back without signing in, in words */
  ssoError?: string | null;
  /** the page to go to once signed in (return-path.ts has checked it) */
  next?: string;
}) {
  const router = useRouter();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(ssoError);
  const [busy, setBusy] = useState(false);

  async function signIn(e: string, p: string) {
    setBusy(true);
    setError(null);
    const res = await authClient.signIn.email({ email: e, password: p });
    setBusy(false);
    if (res.error) {
      setError(
        res.error.status === 401
          ? "That email and password do not match an account."
          : (res.error.message ?? "Could not sign in."),
      );
      return;
    }
    router.push(next);
    router.refresh();
  }

  return (
    <form
      className="form"
      onSubmit={(ev) => {
        ev.preventDefault();
        void signIn(email, password);
      }}
    >
      <div>
        <h1>Sign in</h1>
        <p className="muted" style={{ margin: "0.3rem 0 0" }}>
          Use your lab account.
        </p>
      </div>
      {error ? (
        <div className="alert bad" role="alert">
          {error}
        </div>
      ) : null}
      <div className="field">
        <label htmlFor="email">Email</label>
        <input
          id="email"
          className="input"
          type="email"
          autoComplete="username"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          required
        />
      </div>
      <div className="field">
        <label htmlFor="password">Password</label>
        <input
          id="password"
          className="input"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          required
        />
      </div>
      <button className="btn primary" type="submit" disabled={busy}>
        {busy ? "Signing in…" : "Sign in"}
      </button>
      {sso ? (
        <button
          className="btn"
          type="button"
          onClick={async () => {
            const res = await fetch(SSO_START_PATH, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify(ssoStartBody(sso.providerId, next)),
            });
            const body = (await res.json().catch(() => ({}))) as { url?: string; message?: string };
            if (body.url) window.location.href = body.url;
            else setError(body.message ?? "Single sign-on is not available right now.");
          }}
        >
          Continue with {sso.name}
        </button>
      ) : null}
      {demo.length ? (
        <div className="demo-logins">
          <div className="small muted">
            Demo accounts (password <code>tranche-demo</code>):
          </div>
          {demo.map((d) => (
            <button key={d.email} type="button" onClick={() => void signIn(d.email, "tranche-demo")} disabled={busy}>
              <span>{d.email}</span>
              <span className="muted">{d.what}</span>
            </button>
          ))}
        </div>
      ) : null}
    </form>
  );
}
