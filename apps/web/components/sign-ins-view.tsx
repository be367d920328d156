"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../lib/trpc";
import { errorText } from "../lib/error-text";
import { Empty, ago, when, useNow } from "./ui";

/**
 * Where a person is signed in: each browser's session with "Sign out", and "Sign out everywhere else".
 * `userId`: an admin looking at another user (then every session may be ended, this one included).
 */
export function SignInsView({ userId }: { userId?: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const now = useNow(30_000);
  const [error, setError] = useState<string | null>(null);
  const list = useQuery(userId ? trpc.signIns.ofUser.queryOptions({ userId }) : trpc.signIns.mine.queryOptions());
  const done = {
    onSuccess: () => {
      setError(null);
      void qc.invalidateQueries({ queryKey: userId ? trpc.signIns.ofUser.queryKey() : trpc.signIns.mine.queryKey() });
    },
    onError: (e: unknown) => setError(errorText(e)),
  };
  const end = useMutation(trpc.signIns.end.mutationOptions(done));
  const endOthers = useMutation(trpc.signIns.endOthers.mutationOptions(done));
  const endOf = useMutation(trpc.signIns.endOfUser.mutationOptions(done));
  const endAll = useMutation(trpc.signIns.endAllOfUser.mutationOptions(done));
  const others = (list.data ?? []).filter((s) => !s.current).length;
  return (
    <section className="panel">
      <div className="panel-head row">
        <h2>Signed-in browsers</h2>
        {userId ? (
          <button
            className="btn small danger"
            disabled={!list.data?.length}
            onClick={() => {
              if (confirm("Sign this person out of every browser? Each one asks for a sign-in at its next page."))
                endAll.mutate({ userId });
            }}
          >
            Sign out everywhere
          </button>
        ) : (
          <button
            className="btn small danger"
            disabled={others === 0}
            onClick={() => {
              if (confirm("Sign out of every browser but this one? Each asks for a sign-in at its next page."))
                endOthers.mutate();
            }}
          >
            Sign out everywhere else
          </button>
        )}
      </div>
      {error ? (
        <div className="panel-body">
          <div className="alert bad" role="alert">
            {error}
          </div>
        </div>
      ) : null}
      {list.error ? (
        <div className="panel-body">
          <div className="alert bad" role="alert">
            {list.error.message}
          </div>
        </div>
      ) : !list.data ? (
        <div className="panel-body">
          <span className="skeleton" style={{ display: "block", height: "4rem" }} aria-label="Loading" />
        </div>
      ) : list.data.length === 0 ? (
        <Empty title="Not signed in anywhere" />
      ) : (
        <table className="table" aria-label="Signed-in browsers">
          <thead>
            <tr>
              <th>Browser</th>
              <th>From</th>
              <th>Signed in</th>
              <th>Last seen</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {list.data.map((s) => (
              <tr key={s.id}>
                <td>
                  {s.device}
                  {s.current ? <span className="small muted"> (this browser)</span> : null}
                </td>
                <td className="small">{s.address ?? "unknown"}</td>
                <td className="small nowrap">{when(s.signedInAt)}</td>
                <td className="small nowrap">{ago(s.lastSeenAt, now)}</td>
                <td className="num">
                  {s.current && !userId ? null : (
                    <button
                      className="btn small"
                      aria-label={`Sign out ${s.device}`}
                      onClick={() => (userId ? endOf.mutate({ userId, id: s.id }) : end.mutate({ id: s.id }))}
                    >
                      Sign out
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
