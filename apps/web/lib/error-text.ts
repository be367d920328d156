// How a failed call reads on a page: one sentence per field in words, never a JSON dump of zod issues
// (tRPC's message for a rejected input is the issues as JSON).

export interface FieldIssue {
  path: string;
  message: string;
}

interface RawIssue {
  path?: unknown;
  code?: unknown;
  message?: unknown;
  origin?: unknown;
  minimum?: unknown;
  maximum?: unknown;
  expected?: unknown;
  input?: unknown;
}

/** A zod issue in words: "must not be empty", "must be at most 64 characters". */
function issueWords(i: RawIssue): string {
  const n = (v: unknown) => Number(v);
  if (i.code === "too_small" && i.origin === "string")
    return n(i.minimum) <= 1 ? "must not be empty" : `must be at least ${n(i.minimum)} characters`;
  if (i.code === "too_big" && i.origin === "string") return `must be at most ${n(i.maximum)} characters`;
  if (i.code === "too_small" && i.origin === "number") return `must be at least ${n(i.minimum)}`;
  if (i.code === "too_big" && i.origin === "number") return `must be at most ${n(i.maximum)}`;
  if (i.code === "too_small" && i.origin === "array") return `needs at least ${n(i.minimum)}`;
  if (i.code === "too_big" && i.origin === "array") return `takes at most ${n(i.maximum)}`;
  if (i.code === "invalid_type") return i.input === undefined ? "is required" : `must be a ${String(i.expected)}`;
  return typeof i.message === "string" && i.message ? i.message : "is not valid";
}

const pathOf = (p: unknown): string => (Array.isArray(p) ? p.map(String).join(".") : typeof p === "string" ? p : "");

/** The issues of a failed call, one per field: the server's list, else the JSON in the message. */
export function fieldIssues(error: unknown): FieldIssue[] {
  const e = error as { data?: { zodIssues?: FieldIssue[] | null }; message?: unknown } | null;
  if (e?.data?.zodIssues?.length) return e.data.zodIssues;
  const msg = typeof e?.message === "string" ? e.message.trim() : "";
  if (!msg.startsWith("[")) return [];
  try {
    const raw = JSON.parse(msg) as unknown;
    if (!Array.isArray(raw)) return [];
    return raw.map((i: RawIssue) => ({ path: pathOf(i.path), message: issueWords(i) }));
  } catch {
    return [];
  }
}

/** Field names as people read them. */
const LABEL: Record<string, string> = {
  name: "Name",
  minRuntime: "Minimum runtime",
  maxRuntime: "Maximum runtime",
  gracePeriod: "Grace period",
  gpuType: "GPU type",
  maxMinRuntime: "Longest protection",
  expiresIn: "Valid for",
};

/**
 * The server's sentences name fields as the API spells them ("gpuType is required; expiresIn ... is not a
 * duration"), for REST and CLI users; a page names them as its form does. Only the names above, and only
 * where a clause starts with one.
 */
const labelled = (msg: string): string =>
  msg.replace(/(^|; )([a-z][A-Za-z]*)(?= )/g, (all, lead: string, field: string) =>
    field in LABEL && field !== "name" ? `${lead}${LABEL[field]}` : all,
  );

/** One line for a failed call: "Name must not be empty.", or the server's own sentence. */
export function errorText(error: unknown): string {
  const issues = fieldIssues(error);
  if (issues.length > 0)
    return issues
      .map((i) => {
        // A sentence of its own ("Minimum runtime must ...") names its field already.
        const field = i.path && !/^[A-Z]/.test(i.message) ? (LABEL[i.path] ?? i.path) : "";
        const text =
          /^(must|is|needs|takes)\b/.test(i.message) && field
            ? `${field} ${i.message}`
            : field
              ? `${field}: ${i.message}`
              : i.message;
        return /[.!?]$/.test(text) ? text : `${text}.`;
      })
      .join(" ");
  const msg = (error as { message?: unknown } | null)?.message;
  return typeof msg === "string" && msg ? labelled(msg) : "Something went wrong; try again.";
}
