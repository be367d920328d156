"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { enrollmentTokenStatusText } from "@tranche/contracts/format";
import { revokedNodeSentence } from "@tranche/contracts";
import { useTRPC } from "../../../../lib/trpc";
import { revokeHostQuestion } from "../../../../lib/confirm-words";
import { PageHead, StateBadge, TableRowState, ago, useNow, when } from "../../../../components/ui";
import { Notice } from "../../../../components/admin/notice";
import { useNotice } from "../../../../components/admin/use-action";
import { NewCluster } from "./new-cluster";
import { FormRow, RowInput, RowSelect } from "../../../../components/admin/form-row";
import { SquattingPolicy } from "./squatting-policy";
import { DebugLanePolicy } from "./debug-lane-policy";

/** Clusters, one-time enrollment tokens for new hosts (shown once), which host used each, node credentials. */
/** A host whose credential was revoked: it has nothing left to revoke until it enrolls again. */
const NO_CREDENTIAL = "Credential revoked";

export function ClustersAdmin() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const now = useNow(30_000);
  const me = useQuery(trpc.me.get.queryOptions());
  const clusters = useQuery(trpc.cluster.list.queryOptions());
  const tokens = useQuery(trpc.admin.enrollmentTokens.queryOptions());
  const nodes = useQuery(trpc.node.list.queryOptions());
  const n = useNotice();
  const [cluster, setCluster] = useState("");
  const [expiresIn, setExpiresIn] = useState("1h");
  const [issued, setIssued] = useState<{ cluster: string; token: string; expiresAt: string } | null>(null);
  const [revokeReason, setRevokeReason] = useState("");
  const clusterName = cluster || clusters.data?.[0]?.name || "";
  const issue = useMutation(
    trpc.admin.issueEnrollmentToken.mutationOptions({
      onSuccess: (r) => {
        setIssued({ cluster: clusterName, token: r.token, expiresAt: r.expiresAt });
        n.clear();
        void qc.invalidateQueries({ queryKey: trpc.admin.enrollmentTokens.queryKey() });
      },
      onError: n.fail,
    }),
  );
  const revoke = useMutation(
    trpc.admin.revokeNodeCredential.mutationOptions({
      // The host's row changes with it (a ready host is cordoned): it showed the old state until a reload.
      onSuccess: (r) => {
        n.ok(revokedNodeSentence(r));
        void qc.invalidateQueries({ queryKey: trpc.node.list.pathKey() });
      },
      onError: n.fail,
    }),
  );
  const origin = typeof window === "undefined" ? "http://127.0.0.1:3000" : window.location.origin;
  return (
    <>
      <PageHead
        title="Clusters and hosts"
        lede="Create clusters, let new hosts join with a one-time enrollment token, and cut off a host's credential."
      />
      <Notice notice={n.notice} />
      <div className="stack">
        {me.data?.role === "ADMIN" ? <NewCluster onNotice={n} /> : null}
        {me.data?.role === "ADMIN" ? <SquattingPolicy onNotice={n} /> : null}
        {me.data?.role === "ADMIN" ? <DebugLanePolicy onNotice={n} /> : null}
        <section className="panel">
          <div className="panel-head">
            <h2>Enroll a host</h2>
          </div>
          <FormRow className="panel-body row" onSubmit={() => issue.mutate({ cluster: clusterName, expiresIn })}>
            <RowSelect
              label="Cluster for the token"
              width={180}
              value={clusterName}
              onChange={setCluster}
              options={(clusters.data ?? []).map((c) => [c.name, c.name] as const)}
            />
            <label className="small">
              Valid for <RowInput label="Valid for" width={120} value={expiresIn} onChange={setExpiresIn} />
            </label>
            <button className="btn primary" disabled={!clusterName || issue.isPending}>
              Issue enrollment token
            </button>
          </FormRow>
          {issued ? (
            <div className="panel-body" style={{ paddingTop: 0 }}>
              <div className="alert ok" style={{ marginBottom: "0.6rem" }}>
                Copy this token now; it is not shown again. It works once, until {when(issued.expiresAt)}.
              </div>
              <div className="token-once" data-testid="enrollment-token">
                {issued.token}
              </div>
              <pre
                className="logs small"
                style={{ borderRadius: 8 }}
              >{`node --import tsx apps/node-agent/src/main.ts --server ${origin} --enrollment-token ${issued.token}`}</pre>
            </div>
          ) : null}
        </section>
        <section className="panel">
          <div className="panel-head">
            <h2>Enrollment tokens</h2>
          </div>
          <table className="table" aria-label="Enrollment tokens">
            <thead>
              <tr>
                <th>Cluster</th>
                <th>State</th>
                <th>Used by host</th>
                <th>Issued</th>
                <th>By</th>
              </tr>
            </thead>
            <tbody>
              <TableRowState loading={!tokens.data} empty={tokens.data?.length === 0} cols={5} text="No enrollment tokens yet." />
              {(tokens.data ?? []).map((t) => (
                <tr key={t.id}>
                  <td>{t.cluster}</td>
                  <td className="small">{enrollmentTokenStatusText(t.status)}</td>
                  <td>{t.status === "USED" ? t.nodeName : t.nodeName ? `only ${t.nodeName}` : "—"}</td>
                  <td className="small">{ago(t.createdAt, now)}</td>
                  <td className="small">{t.createdBy ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
        <section className="panel">
          <div className="panel-head">
            <h2>Hosts</h2>
            <input
              className="input"
              aria-label="Reason for a revocation"
              placeholder="Reason for a revocation (kept in the node's history)"
              value={revokeReason}
              onChange={(e) => setRevokeReason(e.target.value)}
            />
          </div>
          <table className="table" aria-label="Hosts">
            <thead>
              <tr>
                <th>Host</th>
                <th>Cluster</th>
                <th>State</th>
                <th>GPUs</th>
                <th>Last heartbeat</th>
                <th />
              </tr>
            </thead>
            <tbody>
              <TableRowState loading={!nodes.data} empty={nodes.data?.length === 0} cols={6} text="No hosts yet." />
              {(nodes.data ?? []).map((h) => (
                <tr key={h.id}>
                  <td>{h.name}</td>
                  <td>{h.cluster}</td>
                  <td>
                    <StateBadge state={h.state} />
                  </td>
                  <td className="num">{h.gpuCount}</td>
                  <td className="small">{h.lastHeartbeatAt ? ago(h.lastHeartbeatAt, now) : "never"}</td>
                  <td className="num">
                    {h.hasCredential ? (
                      <button
                        className="btn small danger"
                        aria-label={`Revoke credential of ${h.name}`}
                        onClick={() => {
                          if (confirm(revokeHostQuestion(h.name))) revoke.mutate({ node: h.name, reason: revokeReason });
                        }}
                      >
                        Revoke credential
                      </button>
                    ) : (
                      <span className="small muted">{NO_CREDENTIAL}</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      </div>
    </>
  );
}
