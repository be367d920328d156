"use client";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../../../lib/trpc";
import { Empty, PageHead, when } from "../../../../components/ui";
import { AUDIT_ACTIONS, auditActionText, auditDetailsText, auditTargetText } from "@tranche/contracts/audit";

/** datetime-local text (local time) -> ISO, or undefined when empty. */
const iso = (local: string) => (local ? new Date(local).toISOString() : undefined);

/** Every admin and operator action, newest first, filtered by who, what, on what and when. */
export function AuditView() {
  const trpc = useTRPC();
  const [form, setForm] = useState({ actor: "", action: "", target: "", since: "", until: "" });
  const [filters, setFilters] = useState(form);
  const input = {
    ...(filters.actor ? { actor: filters.actor } : {}),
    ...(filters.action ? { action: filters.action } : {}),
    ...(filters.target ? { target: filters.target } : {}),
    ...(filters.since ? { since: iso(filters.since) } : {}),
    ...(filters.until ? { until: iso(filters.until) } : {}),
    limit: 200,
  };
  const entries = useQuery(trpc.admin.audit.queryOptions(input));
  const field = (key: keyof typeof form, label: string, type = "text") => (
    <label className="small">
      {label}{" "}
      <input
        className="input"
        style={{ maxWidth: type === "text" ? 180 : 210 }}
        type={type}
        aria-label={label}
        value={form[key]}
        onChange={(e) => setForm({ ...form, [key]: e.target.value })}
      />
    </label>
  );
  return (
    <>
      <PageHead title="Audit log" lede="Every change an admin, manager or operator made: who, what, on what, and when." />
      <section className="panel">
        <form
          className="panel-body row"
          onSubmit={(e) => {
            e.preventDefault();
            setFilters(form);
          }}
        >
          {field("actor", "Who")}
          {/* The actions by their words, as the log shows them; the query takes the chosen one's code. */}
          <label className="small">
            Action{" "}
            <select
              className="input"
              style={{ maxWidth: 240 }}
              aria-label="Action"
              value={form.action}
              onChange={(e) => setForm({ ...form, action: e.target.value })}
            >
              <option value="">any action</option>
              {AUDIT_ACTIONS.map((a) => (
                <option key={a.code} value={a.code}>
                  {a.words}
                </option>
              ))}
            </select>
          </label>
          {field("target", "On")}
          {field("since", "From", "datetime-local")}
          {field("until", "To", "datetime-local")}
          <button className="btn">Filter</button>
        </form>
        {entries.error ? (
          <div className="panel-body">
            <div className="alert bad" role="alert">
              {entries.error.message}
            </div>
          </div>
        ) : !entries.data ? (
          <div className="panel-body">
            <span className="skeleton" style={{ display: "block", height: "6rem" }} aria-label="Loading" />
          </div>
        ) : entries.data.length === 0 ? (
          <Empty title="Nothing matches these filters" />
        ) : (
          <table className="table" aria-label="Audit log">
            <thead>
              <tr>
                <th>When</th>
                <th>Who</th>
                <th>Action</th>
                <th>On</th>
                <th>Details</th>
              </tr>
            </thead>
            <tbody>
              {(entries.data ?? []).map((e) => {
                return (
                  <tr key={e.id}>
                    <td className="small nowrap">{when(e.at)}</td>
                    <td className="small">{e.actor ? e.actor.email : "the system"}</td>
                    <td className="small">{auditActionText(e.action)}</td>
                    <td className="small">{auditTargetText(e.target)}</td>
                    <td className="small" style={{ maxWidth: 380, overflowWrap: "anywhere" }}>
                      {auditDetailsText(e.details, e.target)}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
