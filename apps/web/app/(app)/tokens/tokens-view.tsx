"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../../lib/trpc";
import { revokeTokenQuestion } from "../../../lib/confirm-words";
import { Empty, PageHead, ago, day, useNow } from "../../../components/ui";
import { errorText } from "../../../lib/error-text";

export function TokensView() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const now = useNow(30_000);
  const tokens = useQuery(trpc.token.list.queryOptions());
  // The example names a cluster and a budget of this lab and this person, not the demo's.
  const clusters = useQuery(trpc.cluster.list.queryOptions());
  const budgets = useQuery(trpc.me.budgets.queryOptions());
  const exampleCluster = clusters.data?.[0]?.name ?? "CLUSTER";
  const exampleBudget = budgets.data?.[0]?.path ?? "BUDGET";
  const [name, setName] = useState("");
  const [created, setCreated] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.token.list.queryKey() });
  const create = useMutation(
    trpc.token.create.mutationOptions({
      onSuccess: (r) => {
        setCreated(r.token);
        setName("");
        setError(null);
        void refresh();
      },
      onError: (e) => setError(errorText(e)),
    }),
  );
  const revoke = useMutation(trpc.token.revoke.mutationOptions({ onSuccess: () => void refresh() }));
  const origin = typeof window === "undefined" ? "" : window.location.origin;
  return (
    <>
      <PageHead
        title="API tokens"
        lede="Tokens let scripts and the tranche CLI act as you, with exactly your rights. Only a hash is stored: copy a new token now."
      />
      <div className="grid-2">
        <div className="stack">
          <section className="panel">
            <div className="panel-head">
              <h2>New token</h2>
            </div>
            <form
              className="panel-body row"
              onSubmit={(e) => {
                e.preventDefault();
                create.mutate({ name });
              }}
            >
              <input
                className="input"
                style={{ maxWidth: 320 }}
                placeholder="e.g. laptop CLI"
                aria-label="Token name"
                value={name}
                onChange={(e) => setName(e.target.value)}
              />
              <button className="btn primary" disabled={create.isPending}>
                Create token
              </button>
              {error ? (
                <span className="field-error" role="alert">
                  {error}
                </span>
              ) : null}
            </form>
            {created ? (
              <div className="panel-body" style={{ paddingTop: 0 }}>
                <div className="alert ok" style={{ marginBottom: "0.6rem" }}>
                  Copy this token now; it will not be shown again.
                </div>
                <div className="token-once" data-testid="new-token">
                  {created}
                </div>
              </div>
            ) : null}
          </section>
          <section className="panel">
            <div className="panel-head">
              <h2>Your tokens</h2>
            </div>
            {tokens.data && tokens.data.length ? (
              <table className="table" aria-label="API tokens">
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Token</th>
                    <th>Created</th>
                    <th>Last used</th>
                    <th>Expires</th>
                    <th />
                  </tr>
                </thead>
                <tbody>
                  {tokens.data.map((t) => (
                    <tr key={t.id} style={{ opacity: t.revokedAt ? 0.55 : 1 }}>
                      <td>{t.name}</td>
                      <td className="mono small">{t.prefix}…</td>
                      <td className="small">{ago(t.createdAt, now)}</td>
                      <td className="small">{t.lastUsedAt ? ago(t.lastUsedAt, now) : "never"}</td>
                      <td className="small">{t.expiresAt ? day(t.expiresAt) : "never"}</td>
                      <td className="num">
                        {t.revokedAt ? (
                          <span className="badge b-CANCELLED">revoked</span>
                        ) : (
                          <button
                            className="btn small danger"
                            aria-label={`Revoke ${t.name}`}
                            onClick={() => {
                              if (confirm(revokeTokenQuestion(t.name))) revoke.mutate({ id: t.id });
                            }}
                          >
                            Revoke
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : !tokens.data ? (
              <div className="panel-body">
                <span className="skeleton" style={{ display: "block", height: "3rem" }} aria-label="Loading" />
              </div>
            ) : (
              <Empty title="No tokens yet" />
            )}
          </section>
        </div>
        <section className="panel">
          <div className="panel-head">
            <h2>Use it</h2>
          </div>
          <div className="panel-body small">
            <p style={{ marginTop: 0 }}>
              From the command line: the <code>tranche</code> command comes with Tranche&apos;s repository (its README says how to
              put it on your PATH), never from npm&apos;s registry, where a package of that name is someone else&apos;s and would
              get your token.
            </p>
            <pre className="logs" style={{ borderRadius: 8 }}>
              {/* Short lines: the panel is narrow at 1280 px and a wrapped line broke "--token" in two. */}
              {`tranche login --url ${origin || "http://127.0.0.1:3000"} \\
  --token trn_…
tranche submit --cluster ${exampleCluster} \\
  --budget ${exampleBudget} \\
  --gpus 1 --min-runtime 2h --resumable \\
  -- python train.py
tranche queue ${exampleCluster}
tranche explain 42`}
            </pre>
            <p>Or over HTTP:</p>
            <pre className="logs" style={{ borderRadius: 8 }}>
              {`curl -H "Authorization: Bearer trn_…" \\
  ${origin || "http://127.0.0.1:3000"}/api/v1/jobs`}
            </pre>
            <p style={{ marginBottom: 0 }}>
              The API is described at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI 3.1).
            </p>
          </div>
        </section>
      </div>
    </>
  );
}
