"use client";
import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "../../lib/trpc";

export function SetPasswordForm({ token }: { token: string }) {
  const trpc = useTRPC();
  const [password, setPassword] = useState("");
  const [again, setAgain] = useState("");
  const [error, setError] = useState<string | null>(null);
  const set = useMutation(trpc.account.setPassword.mutationOptions({ onError: (e) => setError(e.message) }));
  if (set.data)
    return (
      <div className="form">
        <h1>Password set</h1>
        <div className="alert ok" role="status">
          You can now sign in as {set.data.email}.
        </div>
        <Link className="btn primary" href="/login">
          Sign in
        </Link>
      </div>
    );
  return (
    <form
      className="form"
      onSubmit={(e) => {
        e.preventDefault();
        if (password !== again) return setError("The two passwords differ.");
        setError(null);
        set.mutate({ token, password });
      }}
    >
      <div>
        <h1>Choose your password</h1>
        <p className="muted" style={{ margin: "0.3rem 0 0" }}>
          This link works once. At least 8 characters.
        </p>
      </div>
      {!token ? (
        <div className="alert bad" role="alert">
          This page needs the link an admin gave you.
        </div>
      ) : null}
      {error ? (
        <div className="alert bad" role="alert">
          {error}
        </div>
      ) : null}
      <div className="field">
        <label htmlFor="password">New password</label>
        <input
          id="password"
          className="input"
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="again">The same again</label>
        <input
          id="again"
          className="input"
          type="password"
          autoComplete="new-password"
          value={again}
          onChange={(e) => setAgain(e.target.value)}
        />
      </div>
      <button className="btn primary" disabled={set.isPending || !token}>
        Set password
      </button>
    </form>
  );
}
