/**
 * Failures a use-case reports on purpose. Adapters map them: tRPC codes, REST status + JSON body.
 * `field` names the input field at fault so forms can show the message next to it.
 */
export type DomainErrorCode = "UNAUTHORIZED" | "FORBIDDEN" | "NOT_FOUND" | "BAD_INPUT" | "CONFLICT";

export class DomainError extends Error {
  override readonly name = "DomainError";
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    readonly field?: string,
    /** Several problems at once (a lab file's), each naming its place; the message sums them up. */
    readonly issues?: { path: string; message: string }[],
  ) {
    super(message);
  }
}

export const badInput = (message: string, field?: string) => new DomainError("BAD_INPUT", message, field);
export const forbidden = (message: string) => new DomainError("FORBIDDEN", message);
export const notFound = (message: string) => new DomainError("NOT_FOUND", message);
/** A conflict with what exists: a duplicate (409), or a state the change does not fit. */
export const conflict = (message: string, field?: string) => new DomainError("CONFLICT", message, field);
