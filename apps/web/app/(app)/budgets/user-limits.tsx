"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { BudgetTreeNodeView } from "@tranche/domain";
import { useTRPC } from "../../../lib/trpc";
import { errorText } from "../../../lib/error-text";
import { plural } from "../../../lib/words";

/**
 * Per-user GPU limits of the budgets under the selected node (or of the budget itself): how many GPUs
 * one person's jobs charged to it may hold at once on a cluster. Its managers edit them; jobs over the
 * limit wait with "per-user GPU limit reached".
 */
export function UserLimits({ node }: { node: BudgetTreeNodeView }) {
  const budgets = node.isBudget ? [node] : node.children.filter((c) => c.isBudget);
  if (budgets.length === 0) return null;
  return (
    <section className="panel" data-testid="user-limits" style={{ marginBottom: "1.25rem" }}>
      <div className="panel-head">
        <h2>Per-user GPU limits</h2>
        <span className="muted small">GPUs one person&apos;s jobs in a budget may hold at once, on each cluster</span>
      </div>
      <div className="panel-body">
        <table className="table">
          <tbody>
            {budgets.map((b) => (
              <LimitRow key={b.id} budget={b} />
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function LimitRow({ budget }: { budget: BudgetTreeNodeView }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [text, setText] = useState(budget.maxGpusPerUser === null ? "" : String(budget.maxGpusPerUser));
  const [msg, setMsg] = useState<{ ok: boolean; text: string } | null>(null);
  const save = useMutation(
    trpc.budget.setUserLimit.mutationOptions({
      onSuccess: (r) => {
        setMsg({
          ok: true,
          text: r.maxGpusPerUser === null ? "No limit now." : `Saved: ${plural(r.maxGpusPerUser, "GPU")} per person.`,
        });
        void qc.invalidateQueries({ queryKey: trpc.budget.tree.queryKey() });
      },
      onError: (e) => setMsg({ ok: false, text: errorText(e) }),
    }),
  );
  return (
    <tr>
      <td className="mono">{budget.path}</td>
      <td>
        {budget.editable ? (
          <form
            className="row"
            onSubmit={(e) => {
              e.preventDefault();
              const t = text.trim();
              const n = Number(t);
              if (t !== "" && (!Number.isInteger(n) || n < 1)) {
                setMsg({ ok: false, text: "A limit is a whole number of GPUs, at least 1 (empty: no limit)." });
                return;
              }
              save.mutate({ budget: budget.path, maxGpusPerUser: t === "" ? null : n });
            }}
          >
            <input
              className="input"
              style={{ maxWidth: 110 }}
              inputMode="numeric"
              placeholder="no limit"
              aria-label={`Per-user GPU limit of ${budget.path}`}
              value={text}
              onChange={(e) => setText(e.target.value)}
            />
            <button className="btn" disabled={save.isPending}>
              Save
            </button>
            {msg ? (
              <span className={msg.ok ? "small" : "field-error"} role={msg.ok ? undefined : "alert"}>
                {msg.text}
              </span>
            ) : null}
          </form>
        ) : budget.maxGpusPerUser === null ? (
          <span className="muted">no limit</span>
        ) : (
          `${plural(budget.maxGpusPerUser, "GPU")} per person`
        )}
      </td>
    </tr>
  );
}
