import { controlCharsMessage, hasControlChars, hasReorderingChars, reorderingCharsMessage, text } from "./input";
import { LIMITS } from "./limits";

/**
 * The name a job gets when none is given, from its command: the program's own name, the way people
 * would say it. Leading `VAR=value` words are skipped (they set the environment, they are not the
 * program), then the first word (a quoted one whole) loses its path and the shell's punctuation:
 * `./train.sh` and `/opt/bin/train.sh;` are "train.sh", `FOO=1 python3 x.py` is "python3", `(cd` is
 * "cd". What leaves nothing (a command of punctuation) is "job". One function for every entry point:
 * the REST and tRPC submissions store it, the CLI's submissions go through REST, and the web form shows
 * it before submitting.
 */
export const DEFAULT_JOB_NAME = "job";
const NAME_CHARS = 60;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=(?:"[^"]*"|'[^']*'|[^\s"'])*\s*/;
const WORD = /^(?:"([^"]*)"|'([^']*)'|(\S+))/;
// A name keeps letters, digits and . _ - inside it; anything else ends it (`python3;` -> python3).
const NAME = /[\p{L}\p{N}](?:[\p{L}\p{N}._-]*[\p{L}\p{N}])?/u;

export function defaultJobName(command: string): string {
  let rest = command.trim();
  for (let m = ASSIGNMENT.exec(rest); m && m[0].length > 0; m = ASSIGNMENT.exec(rest)) rest = rest.slice(m[0].length);
  const w = WORD.exec(rest);
  const program = w ? (w[1] ?? w[2] ?? w[3]!) : "";
  const base =
    program
      .replace(/[/\\]+$/, "")
      .split(/[/\\]/)
      .pop() ?? "";
  const name = NAME.exec(base)?.[0] ?? "";
  return name.slice(0, NAME_CHARS).replace(/[._-]+$/, "") || DEFAULT_JOB_NAME;
}

/**
 * A name as a job or a session is submitted with: listed to everyone, so no control characters and none
 * that reorder the text around them ('eval \u202Eredro' read as "eval order").
 */
export const jobNameInput = text("name")
  .trim()
  .min(1, "name must not be empty")
  .max(LIMITS.nameChars, `name is longer than ${LIMITS.nameChars.toLocaleString("en-US")} characters`)
  .refine((s) => s.includes("\u0000") || !hasControlChars(s), controlCharsMessage("name"))
  .refine((s) => !hasReorderingChars(s), reorderingCharsMessage("name"));
