"use client";
import type { ReactNode } from "react";

/**
 * The admin pages' inline forms: fields in one row, submitted by Enter or the row's button without a
 * page reload. One place for the markup the admin pages used to repeat field by field.
 */
export function FormRow({
  onSubmit,
  className = "row",
  children,
}: {
  onSubmit: () => void;
  className?: string;
  children: ReactNode;
}) {
  return (
    <form
      className={className}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {children}
    </form>
  );
}

/** A text field of a FormRow; `label` names it for screen readers and tests (the placeholder shows an example). */
export function RowInput({
  label,
  value,
  onChange,
  placeholder,
  width,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  placeholder?: string;
  width?: number;
}) {
  return (
    <input
      className="input"
      style={width ? { maxWidth: width } : undefined}
      aria-label={label}
      placeholder={placeholder}
      value={value}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}

/** A choice of a FormRow: `options` as [value, text] pairs. */
export function RowSelect<T extends string>({
  label,
  value,
  onChange,
  options,
  width,
}: {
  label: string;
  value: T;
  onChange: (value: T) => void;
  options: readonly (readonly [T, string])[];
  width?: number;
}) {
  return (
    <select
      className="select"
      style={width ? { maxWidth: width } : undefined}
      aria-label={label}
      value={value}
      onChange={(e) => onChange(e.target.value as T)}
    >
      {options.map(([v, text]) => (
        <option key={v} value={v}>
          {text}
        </option>
      ))}
    </select>
  );
}
