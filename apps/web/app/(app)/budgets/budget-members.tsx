"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { removedMemberText } from "@tranche/contracts";
import type { BudgetTreeNodeView } from "@tranche/domain";
import { useTRPC } from "../../../lib/trpc";
import { errorText } from "../../../lib/error-text";
import { removeMemberQuestion } from "../../../lib/confirm-words";

/**
 * Who may charge each budget under the selected node, for the people who manage it (admins too): names,
 * add and remove. A manager had no page for this (the tree page is the admins'); everyone else sees only
 * how many people a budget has, in the tree below. The API checks the caller again on every call.
 */
export function BudgetMembers({ node }: { node: BudgetTreeNodeView }) {
  const budgets = node.isBudget ? [node] : node.children.filter((c) => c.isBudget);
  if (!node.managesChildren || budgets.length === 0) return null;
  return (
    <section className="panel" data-testid="budget-members" style={{ marginBottom: "1.25rem" }}>
      <div className="panel-head">
        <h2>Members</h2>
        <span className="muted small">who may submit to each budget you manage</span>
      </div>
      <div className="panel-body">
        <table className="table">
          <tbody>
            {budgets.map((b) => (
              <MembersRow key={b.id} path={b.path} />
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function MembersRow({ path }: { path: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const people = useQuery(trpc.admin.people.queryOptions({ path }));
  const [email, setEmail] = useState("");
  const [msg, setMsg] = useState<{ ok: boolean; text: string } | null>(null);
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: trpc.admin.people.queryKey({ path }) });
    void qc.invalidateQueries({ queryKey: trpc.budget.tree.queryKey() });
  };
  const fail = (e: unknown) => setMsg({ ok: false, text: errorText(e) });
  const add = useMutation(
    trpc.admin.addMember.mutationOptions({
      onSuccess: (r) => (setMsg({ ok: true, text: `${r.email} may now submit to ${path}.` }), setEmail(""), refresh()),
      onError: fail,
    }),
  );
  const remove = useMutation(
    trpc.admin.removeMember.mutationOptions({
      onSuccess: (r) => (setMsg({ ok: true, text: removedMemberText(r.email, path, r.jobsLeft) }), refresh()),
      onError: fail,
    }),
  );
  const members = people.data?.members ?? [];
  return (
    <tr data-testid={`members-${path}`}>
      <td className="mono" style={{ verticalAlign: "top" }}>
        {path}
      </td>
      <td>
        {people.isPending ? (
          <span className="muted small">Loading…</span>
        ) : members.length ? (
          <ul className="small" style={{ margin: 0, paddingLeft: "1.1rem" }}>
            {members.map((p) => (
              <li key={p.email}>
                {p.name} &lt;{p.email}&gt;{" "}
                <button
                  className="linkbtn"
                  disabled={remove.isPending}
                  onClick={() => {
                    if (confirm(removeMemberQuestion(p.email, path))) remove.mutate({ path, email: p.email });
                  }}
                  aria-label={`Remove ${p.email} from ${path}`}
                >
                  remove
                </button>
              </li>
            ))}
          </ul>
        ) : (
          <span className="muted small">Nobody yet.</span>
        )}
        <form
          className="row"
          style={{ marginTop: "0.4rem" }}
          onSubmit={(e) => {
            e.preventDefault();
            add.mutate({ path, email: email.trim() });
          }}
        >
          <input
            className="input"
            style={{ maxWidth: 240 }}
            type="email"
            placeholder="e-mail"
            aria-label={`Add a member to ${path}`}
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
          <button className="btn" disabled={add.isPending || email.trim() === ""}>
            Add
          </button>
          {msg ? (
            <span className={msg.ok ? "small" : "field-error"} role={msg.ok ? "status" : "alert"}>
              {msg.text}
            </span>
          ) : null}
        </form>
      </td>
    </tr>
  );
}
