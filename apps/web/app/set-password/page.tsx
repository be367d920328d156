import Link from "next/link";
import { passwordLinkIsLive } from "@tranche/domain";
import { db } from "../../server/db";
import { SetPasswordForm } from "./set-password-form";

export const dynamic = "force-dynamic";
export const metadata = { title: "Choose your password" };

/** Where an admin's one-time link leads: no session needed, the link's token is the proof. */
export default async function SetPasswordPage({ searchParams }: { searchParams: Promise<{ token?: string }> }) {
  const { token } = await searchParams;
  // A dead link says so at once, not after the password was typed twice.
  const live = await passwordLinkIsLive(db(), token ?? "");
  return (
    <section className="login-form-wrap" style={{ minHeight: "100vh" }}>
      <div className="login-card">
        {live ? (
          <SetPasswordForm token={token ?? ""} />
        ) : (
          <div className="form">
            <h1>This link no longer works</h1>
            <div className="alert error" role="alert">
              It is unknown, already used or expired. Ask an admin for a new one.
            </div>
            <Link className="btn" href="/login">
              Sign in
            </Link>
          </div>
        )}
      </div>
    </section>
  );
}
