"use client";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../lib/trpc";
import { Empty, PageHead, when } from "./ui";
import { AUDIT_ACTIONS, auditActionText, auditDetailsText, auditTargetText } from "@tranche/contracts/audit";

/** datetime-local text (local time) -> ISO, or undefined when empty. */
const iso = (local: string) => (local ? new Date(local).toISOString() : undefined);

const PAGE = 200;

/**
 * The audit log the caller may read (all of it for admins; the server narrows it for operators and
 * managers), newest first, filtered by who, what, on what and when, a page at a time.
 */
export function AuditView() {
  const trpc = useTRPC();
  const [form, setForm] = useState({ actor: "", action: "", target: "", since: "", until: "" });
  const [filters, setFilters] = useState(form);
  // The first entry of each page shown before this one is the last id of the page before it.
  const [cursors, setCursors] = useState<string[]>([]);
  const before = cursors[cursors.length - 1];
  const input = {
    ...(filters.actor ? { actor: filters.actor } : {}),
    ...(filters.action ? { action: filters.action } : {}),
    ...(filters.target ? { target: filters.target } : {}),
    ...(filters.since ? { since: iso(filters.since) } : {}),
    ...(filters.until ? { until: iso(filters.until) } : {}),
    ...(before ? { before } : {}),
    limit: PAGE,
  };
  const entries = useQuery(trpc.admin.audit.queryOptions(input));
  const field = (key: keyof typeof form, label: string, type = "text", placeholder?: string) => (
    <label className="small">
      {label}{" "}
      <input
        className="input"
        style={{ maxWidth: type === "text" ? 180 : 210 }}
        type={type}
        aria-label={label}
        placeholder={placeholder}
        value={form[key]}
        onChange={(e) => setForm({ ...form, [key]: e.target.value })}
      />
    </label>
  );
  return (
    <>
      <PageHead
        title="Audit log"
        lede="Changes made by admins, managers and operators: who, what, on what, and when. Operators see hosts and clusters; managers the subtrees they manage."
      />
      <section className="panel">
        <form
          className="panel-body row"
          onSubmit={(e) => {
            e.preventDefault();
            setFilters(form);
            setCursors([]);
          }}
        >
          {field("actor", "Who", "text", "e-mail or part of it")}
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
          {field("target", "On", "text", "e.g. lab/vision, h100-3")}
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
          // Without a filter, an empty page is a new lab's log, not a search that found nothing.
          <Empty title={Object.values(filters).some(Boolean) ? "Nothing matches these filters" : "Nothing recorded yet"}>
            {Object.values(filters).some(Boolean) ? null : (
              <span className="small muted">
                Changes to users, the budget tree, shares, clusters and nodes are listed here as they are made.
              </span>
            )}
          </Empty>
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
                    {/* People by their names, as on the job pages; the e-mail (what Who filters on) under it. */}
                    <td className="small">
                      {e.actor ? (
                        <>
                          {e.actor.name}
                          <div className="muted">{e.actor.email}</div>
                        </>
                      ) : (
                        "the system"
                      )}
                    </td>
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
        {entries.data && (cursors.length > 0 || entries.data.length === PAGE) ? (
          <div className="panel-body row">
            {cursors.length > 0 ? (
              <button className="btn" onClick={() => setCursors(cursors.slice(0, -1))}>
                Newer entries
              </button>
            ) : null}
            {entries.data.length === PAGE ? (
              <button className="btn" onClick={() => setCursors([...cursors, entries.data[entries.data.length - 1]!.id])}>
                Older entries
              </button>
            ) : null}
          </div>
        ) : null}
      </section>
    </>
  );
}
