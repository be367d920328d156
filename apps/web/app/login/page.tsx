import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { sessionActor, oidcConfig } from "../../server/auth";
import { db } from "../../server/db";
import { FirstAdminHint } from "./first-admin-hint";
import { LoginForm } from "./login-form";
import { returnPath } from "./return-path";
import { ssoErrorText } from "./sso-errors";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in" };

const DEMO = [
  { email: "ada@tranche.example", what: "researcher" },
  { email: "maya@tranche.example", what: "manager · lab/language" },
  { email: "victor@tranche.example", what: "manager · lab/vision" },
  { email: "omar@tranche.example", what: "operator" },
  { email: "admin@tranche.example", what: "admin" },
];

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ error?: string; next?: string }> }) {
  const { error, next } = await searchParams;
  const back = returnPath(next);
  if (await sessionActor(await headers())) redirect(back);
  // Offer the seeded demo accounts only when they exist (the demo world of `npm start`).
  const present = new Set(
    (await db().user.findMany({ where: { email: { in: DEMO.map((d) => d.email) } }, select: { email: true } })).map(
      (u) => u.email,
    ),
  );
  const noAccount = (await db().user.count()) === 0;
  const sso = oidcConfig();
  return (
    <div className="login-wrap">
      <section className="login-hero">
        <div className="brand" style={{ padding: 0 }}>
          <span className="brand-mark" aria-hidden>
            <i />
            <i />
            <i />
          </span>
          Tranche
        </div>
        <div>
          <h1>GPU time shared by budgets, not by who shouts loudest.</h1>
          <p>Every team gets its allocation over the week. Every job has a contract. Every wait has a reason.</p>
          <ul className="login-points">
            <li>
              <span aria-hidden>●</span>
              <span>
                <b>Protected runs.</b> Ask for a minimum runtime and nothing preempts you before it ends.
              </span>
            </li>
            <li>
              <span aria-hidden>●</span>
              <span>
                <b>Fair share.</b> The most under-served budget goes first; shares converge to allocations.
              </span>
            </li>
            <li>
              <span aria-hidden>●</span>
              <span>
                <b>Debug lane.</b> Jobs of 15 minutes or less start ahead of regular work.
              </span>
            </li>
          </ul>
        </div>
        <div className="small" style={{ color: "#7d8aa6" }}>
          Open-source control plane for shared GPU clusters
        </div>
      </section>
      <section className="login-form-wrap">
        <div className="login-card">
          {noAccount ? <FirstAdminHint /> : null}
          <LoginForm
            demo={DEMO.filter((d) => present.has(d.email))}
            sso={sso}
            next={back}
            ssoError={ssoErrorText(error, sso?.name ?? "single sign-on")}
          />
        </div>
      </section>
    </div>
  );
}
