"use client";
import type { CSSProperties, ReactNode } from "react";
import { noBudgetWords } from "../lib/words";

/**
 * The fields the submit form and the start-session form share (cluster, budget, text fields with
 * their hint and error), so both read and behave alike: one label, one error id per field.
 */

export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  return message ? (
    <div className="field-error" id={`${id}-error`} role="alert">
      {message}
    </div>
  ) : null;
}

/** aria attributes that tie a control to its error. */
export const invalidProps = (id: string, error: string | undefined) => ({
  "aria-invalid": error ? true : undefined,
  "aria-describedby": error ? `${id}-error` : undefined,
});

interface ClusterOption {
  id: number | string;
  name: string;
  gpuType: string;
  gpuCount: number;
  readyGpus: number;
}

/** Label, select, optional hint and error of one choice; `children` are its options. */
function LabelledSelect(p: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  hint?: string;
  children: ReactNode;
}) {
  return (
    <div className="field">
      <label htmlFor={p.id}>{p.label}</label>
      <select
        id={p.id}
        className="select"
        value={p.value}
        onChange={(e) => p.onChange(e.target.value)}
        {...invalidProps(p.id, p.error)}
      >
        {p.children}
      </select>
      {p.hint ? <span className="hint">{p.hint}</span> : null}
      <FieldError id={p.id} message={p.error} />
    </div>
  );
}

export function ClusterSelect(p: {
  id: string;
  value: string;
  clusters: ClusterOption[] | undefined;
  onChange: (name: string) => void;
  error?: string;
}) {
  return (
    <LabelledSelect id={p.id} label="Cluster" value={p.value} onChange={p.onChange} error={p.error}>
      {p.clusters === undefined ? <option value="">Loading clusters…</option> : null}
      {p.clusters?.map((c) => (
        <option key={c.id} value={c.name}>
          {c.name} — {c.gpuCount} × {c.gpuType}, {c.readyGpus} ready
        </option>
      ))}
    </LabelledSelect>
  );
}

export function BudgetSelect(p: {
  id: string;
  value: string;
  budgets: { id: number | string; path: string }[] | undefined;
  onChange: (path: string) => void;
  error?: string;
}) {
  return (
    <LabelledSelect
      id={p.id}
      label="Budget"
      value={p.value}
      onChange={p.onChange}
      error={p.error ?? noBudgetWords(p.budgets) ?? undefined}
      hint="The budget its GPU time is charged to."
    >
      {p.budgets === undefined ? <option value="">Loading your budgets…</option> : null}
      {p.budgets?.length === 0 ? <option value="">No budget</option> : null}
      {p.budgets?.map((b) => (
        <option key={b.id} value={b.path}>
          {b.path}
        </option>
      ))}
    </LabelledSelect>
  );
}

export interface TextFieldProps {
  id: string;
  label: ReactNode;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  hint?: ReactNode;
  placeholder?: string;
  numeric?: boolean;
  multiline?: boolean;
  full?: boolean;
  style?: CSSProperties;
  /** Shown between the control and its hint (e.g. preset buttons). */
  extra?: ReactNode;
}

/** Label, control, hint and error of one text field. */
export function TextField(p: TextFieldProps) {
  const control = { id: p.id, placeholder: p.placeholder, style: p.style, value: p.value, ...invalidProps(p.id, p.error) };
  return (
    <div className={p.full ? "field full" : "field"}>
      <label htmlFor={p.id}>{p.label}</label>
      {p.multiline ? (
        <textarea className="textarea" {...control} onChange={(e) => p.onChange(e.target.value)} />
      ) : (
        <input
          className="input"
          inputMode={p.numeric ? "numeric" : undefined}
          {...control}
          onChange={(e) => p.onChange(e.target.value)}
        />
      )}
      {p.extra}
      {p.hint ? <span className="hint">{p.hint}</span> : null}
      <FieldError id={p.id} message={p.error} />
    </div>
  );
}
