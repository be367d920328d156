import { SetPasswordForm } from "./set-password-form";

export const dynamic = "force-dynamic";
export const metadata = { title: "Choose your password" };

/** Where an admin's one-time link leads: no session needed, the link's token is the proof. */
export default async function SetPasswordPage({ searchParams }: { searchParams: Promise<{ token?: string }> }) {
  const { token } = await searchParams;
  return (
    <section className="login-form-wrap" style={{ minHeight: "100vh" }}>
      <div className="login-card">
        <SetPasswordForm token={token ?? ""} />
      </div>
    </section>
  );
}
