"use client";
import { useEffect, useState, type ReactNode } from "react";
import { formatDuration, gpuHoursNumber, stateWords } from "@tranche/contracts/format";
import { reasonLabel } from "@tranche/contracts/reasons";
import { reasonTimesText } from "../lib/words";
export { until } from "../lib/words";

export function PageHead({ title, lede, children }: { title: string; lede?: ReactNode; children?: ReactNode }) {
  return (
    <div className="page-head">
      <div>
        <h1>{title}</h1>
        {lede ? <p className="lede">{lede}</p> : null}
      </div>
      {children ? <div className="row">{children}</div> : null}
    </div>
  );
}

export function StateBadge({ state }: { state: string }) {
  return <span className={`badge b-${state}`}>{stateWords(state)}</span>;
}

export function LaneBadge({ lane }: { lane: "DEBUG" | "ALLOCATED" | "UNALLOCATED" }) {
  const label = lane === "DEBUG" ? "Debug lane" : lane === "ALLOCATED" ? "Allocated" : "Unallocated";
  return <span className={`badge plain b-${lane}`}>{label}</span>;
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <strong>{title}</strong>
      {children}
    </div>
  );
}

/** Re-render every `ms` (countdowns, "3 min ago"). */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

export function ago(iso: string | Date | null | undefined, now: number): string {
  if (!iso) return "—";
  const t = typeof iso === "string" ? Date.parse(iso) : iso.getTime();
  const s = Math.round((now - t) / 1000);
  if (s < 5) return "just now";
  if (s < 0) return `in ${formatDuration(-s)}`;
  return `${formatDuration(s)} ago`;
}

/**
 * A reason sentence as people read it. The core no longer writes raw times ("(t=1796053270)"), but
 * reasons stored by an older worker still carry them until the next cycle rewrites them.
 */
export function readable(sentence: string): string {
  return sentence.replace(/ \(t=\d+\)/g, "");
}

export function when(iso: string | Date | null | undefined): string {
  if (!iso) return "—";
  const d = typeof iso === "string" ? new Date(iso) : iso;
  return d.toLocaleString("en-GB", { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

/** A day, as the other dates read (en-GB, never the browser's own "12/6/2026"): "6 Jan 2027". */
export function day(iso: string | Date | null | undefined): string {
  if (!iso) return "—";
  const d = typeof iso === "string" ? new Date(iso) : iso;
  return d.toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric" });
}

export function gpuHours(gpuSeconds: number | null | undefined): string {
  if (gpuSeconds === null || gpuSeconds === undefined) return "—";
  return `${gpuHoursNumber(gpuSeconds)} GPU·h`;
}

export function pct(x: number | null | undefined, digits = 0): string {
  return x === null || x === undefined || !Number.isFinite(x) ? "—" : `${(x * 100).toFixed(digits)}%`;
}

export { budgetColors, colorFor } from "../lib/colors";

/** A reason code as a plain label; the code itself in the tooltip (and in JSON). */
export function ReasonTag({ code, kind, details }: { code: string; kind?: string; details?: unknown }) {
  return (
    <span className="reason-tag" title={`Reason code: ${code}`} data-code={code}>
      {reasonLabel(code, { kind, details })}
    </span>
  );
}

/** Wall-clock time in the viewer's time zone, with the day when it is not today: "19:32", "2 Dec 07:10". */
export function clock(iso: string, now: number): string {
  const d = new Date(iso);
  const time = d.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit" });
  return d.toDateString() === new Date(now).toDateString()
    ? time
    : `${d.toLocaleDateString("en-GB", { day: "numeric", month: "short" })} ${time}`;
}

/** "19:32 (in 29 min)", "19:02 (3 min ago)". */
export function clockAndRelative(iso: string, now: number): string {
  const exact = Math.round((Date.parse(iso) - now) / 1000);
  // Whole minutes past the first one: a countdown in seconds beside a wall-clock time is noise.
  const s = Math.abs(exact) >= 60 ? Math.round(exact / 60) * 60 : exact;
  const rel = Math.abs(s) < 5 ? "now" : s > 0 ? `in ${formatDuration(s)}` : `${formatDuration(-s)} ago`;
  return `${clock(iso, now)} (${rel})`;
}

/**
 * The time a pending reason names, from its details (ISO 8601), in the viewer's time zone: when the
 * job holding a reservation can start there. The earliest start (a lower bound) is not shown as a time:
 * the start forecast beside it is the expected time (issue 16).
 */
export function ReasonTimes({ code, details, now }: { code: string | null; details: unknown; now: number }) {
  const text = reasonTimesText(code, details, (iso) => clockAndRelative(iso, now));
  if (text === null) return null;
  return (
    <span className="reason-time" suppressHydrationWarning title="When the job holding the reservation can start there">
      {text}
    </span>
  );
}

/** A table's one row while it loads (a skeleton, not an empty table) or when it has nothing to list. */
export function TableRowState({ loading, empty, cols, text }: { loading: boolean; empty: boolean; cols: number; text: string }) {
  if (!loading && !empty) return null;
  return (
    <tr>
      <td colSpan={cols} className={loading ? undefined : "muted small"}>
        {loading ? <span className="skeleton" style={{ display: "block", height: "1.4rem" }} aria-label="Loading" /> : text}
      </td>
    </tr>
  );
}
