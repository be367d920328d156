import { z } from "zod";

/**
 * Building blocks of input schemas. Inputs are strict: a field the schema does not know is refused
 * with 400 naming it (a typo such as `maxRuntim` silently dropped would run the job without its
 * limit). Strings refuse NUL: Postgres text and jsonb cannot hold U+0000, so one would fail the
 * insert with a 500 instead of a 400 naming the field.
 */

/**
 * The error of a field's type check. A field that is missing reaches its schema as `undefined`, and
 * it is "required", not "must be a string": `message` is for a value that is there but of the wrong
 * type. Every type check of an input names its field this way (zod computes the message where the
 * input is at hand; the formatters, fieldIssues and the CLI's, only see the text).
 */
export function typeError(field: string, message: string, required = `${field} is required`) {
  return (iss: { input?: unknown }) => (iss.input === undefined ? required : message);
}

/** A value that was given but is of the wrong type, in words: "got null", "got a list". */
export function gotWords(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "an object";
  if (typeof v === "string") return `"${v.slice(0, 40)}"`;
  return String(v).slice(0, 40);
}

/**
 * A UTF-16 surrogate without its pair (JSON's "\ud800" alone) is no character: a jsonb value (a job's
 * environment, an event's or an audit row's details) refuses it, so one would fail the insert with a 500
 * instead of a 400 naming the field.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Does `s` hold a surrogate without its pair? */
export function hasLoneSurrogate(s: string): boolean {
  return LONE_SURROGATE.test(s);
}

/** The message for a string that holds one. */
export const loneSurrogateMessage = (field: string) =>
  `${field} must be valid Unicode text: it holds half of a character (a lone surrogate such as \\ud800)`;

/** A string without NUL characters or lone surrogates. */
export function text(field: string) {
  return z
    .string({ error: typeError(field, `${field} must be a string`) })
    .refine((s) => !s.includes("\u0000"), `${field} must not contain NUL characters (\\u0000)`)
    .refine((s) => !hasLoneSurrogate(s), loneSurrogateMessage(field));
}

/**
 * Control characters: C0 (U+0000..U+001F: NUL, BEL, ESC, tab, line breaks), DEL and C1
 * (U+0080..U+009F, CSI among them). A terminal acts on them instead of printing them, so a name that
 * holds one could retitle, clear or recolour the terminal of whoever lists it.
 */
// eslint-disable-next-line no-control-regex -- the control characters are what this finds
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

/** Does `s` hold a control character (C0, DEL or C1)? */
export function hasControlChars(s: string): boolean {
  return CONTROL_CHARS.test(s);
}

/** The message for a one-line text field that holds a control character. */
export const controlCharsMessage = (field: string) =>
  `${field} must not contain control characters (such as ESC, BEL, tab or a line break)`;

/**
 * Characters that reorder the text around them: the bidirectional embeddings, overrides and isolates
 * (U+202A..U+202E, U+2066..U+2069). In a job name that everyone lists, U+202E (right-to-left override)
 * makes the rest of the name, and on a terminal the rest of the line, read backwards ("eval \u202Eredro"
 * shows as "eval order"). Letters of right-to-left scripts need none of them.
 */
const REORDERING_CHARS = /[\u202a-\u202e\u2066-\u2069]/;

/** Does `s` hold a character that reorders the text around it? */
export function hasReorderingChars(s: string): boolean {
  return REORDERING_CHARS.test(s);
}

/** The message for a name that holds one. */
export const reorderingCharsMessage = (field: string) =>
  `${field} must not contain characters that reorder the text around them (U+202A to U+202E, U+2066 to U+2069)`;

/** An object that refuses fields it does not know, naming them and the fields it takes. */
export function strictObject<S extends z.core.$ZodLooseShape>(shape: S, what: string) {
  const known = Object.keys(shape).join(", ") || "none";
  return z.strictObject(shape, {
    error: (iss) =>
      iss.code === "unrecognized_keys"
        ? `unknown field${iss.keys.length === 1 ? "" : "s"} ${iss.keys.map((k) => `'${k}'`).join(", ")} in ${what} (fields: ${known})`
        : iss.code === "invalid_type"
          ? `${what} must be a JSON object`
          : undefined,
  });
}

export interface FieldIssue {
  path: string;
  message: string;
}

/**
 * Zod issues as one `{ path, message }` per field, in words: an unknown-fields issue becomes one
 * issue per unknown field, at that field's path. Every adapter (REST, tRPC, agent protocol) answers
 * with these.
 */
export function fieldIssues(err: z.ZodError): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const i of err.issues) {
    const at = i.path.map(String);
    if (i.code === "unrecognized_keys")
      for (const k of i.keys) {
        const where = /' in (.+ \(fields: [^)]*\))$/.exec(i.message)?.[1];
        out.push({ path: [...at, k].join("."), message: `unknown field '${k}'${where ? ` in ${where}` : ""}` });
      }
    else out.push({ path: at.join("."), message: i.message });
  }
  return out;
}

/**
 * One sentence for a list of field issues: the first ten, then a count of the rest. An issue is led by
 * its field unless it names it already: it starts with the field, or it is a sentence of its own in
 * people's words ("Minimum runtime must ...") about a top-level field (a nested one keeps its place:
 * "jobs.1.gpus: ...").
 */
export function issuesSentence(issues: FieldIssue[]): string {
  const named = (i: FieldIssue): boolean =>
    !i.path || i.message.startsWith(i.path) || (!i.path.includes(".") && /^[A-Z]/.test(i.message));
  const shown = issues.slice(0, 10).map((i) => (named(i) ? i.message : `${i.path}: ${i.message}`));
  if (issues.length > 10) shown.push(`and ${issues.length - 10} more problems (see issues)`);
  return shown.join("; ");
}
