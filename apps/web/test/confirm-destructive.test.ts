import { describe, expect, it } from "vitest";
import { pageSources } from "./page-sources";
import { cancelJobQuestion, roleChangeQuestion, takesPowerAway } from "../lib/confirm-words";

/**
 * A red (danger) button revokes, archives, cancels, drains or signs someone out: one slip of the mouse
 * must not do that. So does a plain-looking one that removes someone or cancels work ("remove" beside a
 * member, "Cancel job"), named so by its words; a bare "Cancel" only closes a question. Each such
 * button asks first, with confirm() in its own click handler.
 */
const DESTRUCTIVE_WORDS = /^(?:remove|revoke|archive|drain|disable|cancel\s+\S)/i;

function buttons(source: string): string[] {
  return [...source.matchAll(/<button\b[\s\S]*?<\/button>/g)].map((m) => m[0]);
}
const buttonText = (b: string) => b.replace(/\s+/g, " ").replace(/^.*>\s*([^<>]*?)\s*<\/button>$/, "$1");
const ariaLabel = (b: string) =>
  /aria-label=(?:"([^"]*)"|\{`([^`]*)`\})/
    .exec(b)
    ?.slice(1)
    .find((x) => x !== undefined) ?? "";

function destructive(b: string): boolean {
  if (/className=(?:"[^"]*|\{`[^`]*)\bdanger\b/.test(b)) return true;
  return DESTRUCTIVE_WORDS.test(buttonText(b)) || DESTRUCTIVE_WORDS.test(ariaLabel(b));
}

export function dangerButtonsWithoutQuestion(source: string): string[] {
  return buttons(source)
    .filter((b) => destructive(b) && !/\bconfirm\(/.test(b))
    .map(buttonText);
}

/** A select that acts as soon as it changes (a user's role) acts on one slip as a button does. */
export function actingSelectsWithoutQuestion(source: string): string[] {
  return [...source.matchAll(/<select\b[\s\S]*?<\/select>/g)]
    .map((m) => m[0])
    .filter((s) => /onChange=\{[^}]*\.mutate\(/.test(s) && !/\bconfirm\(/.test(s))
    .map((s) => ariaLabel(s));
}

/**
 * The conditions under which a destructive control acts without asking (`if (x || confirm(q))`). Each
 * must be one where nothing is lost; the list below says which, so a new one (or "only when running")
 * is a choice someone made in this file.
 */
export function skippedQuestions(source: string): string[] {
  const controls = [
    ...buttons(source).filter(destructive),
    ...[...source.matchAll(/<select\b[\s\S]*?<\/select>/g)].map((m) => m[0]),
  ];
  return controls.flatMap((c) =>
    [...c.matchAll(/\bif\s*\(\s*([^|]*?)\s*\|\|\s*confirm\(/g)].map((m) => m[1]!.replace(/\s+/g, " ")),
  );
}

const HARMLESS_WITHOUT_QUESTION = [
  // Enable: the same button, undoing a Disable.
  "app/(app)/admin/users/users-list.tsx: u.disabled",
  // A role change that takes no power away (a promotion, or operator to manager's level and back).
  "app/(app)/admin/users/users-list.tsx: !takesPowerAway(u.role, role)",
  // A drain of a node with nothing running stops no one's work.
  "app/(app)/nodes/planned-drain.tsx: node.usedGpus === 0",
];

describe("destructive buttons ask first", () => {
  it("finds a danger button that acts at once (the check can fail)", () => {
    const at = `<button className="btn small danger" onClick={() => revoke.mutate({ id: t.id })}>\n  Revoke\n</button>`;
    expect(dangerButtonsWithoutQuestion(at)).toEqual(["Revoke"]);
    const asks = `<button className="btn danger" onClick={() => { if (confirm(q)) revoke.mutate({ id }); }}>Revoke</button>`;
    expect(dangerButtonsWithoutQuestion(asks)).toEqual([]);
    expect(dangerButtonsWithoutQuestion(`<button className="btn" onClick={save}>Save</button>`)).toEqual([]);
    // Red only in one of its states (Disable, not Enable): still red when it acts.
    const sometimes = '<button className={`btn small ${u.disabled ? "" : "danger"}`} onClick={() => off()}>Disable</button>';
    expect(dangerButtonsWithoutQuestion(sometimes)).toEqual(["Disable"]);
  });

  it("finds a plain-looking remove or cancel by its words, and leaves a bare Cancel that closes a question", () => {
    const remove =
      '<button className="linkbtn" onClick={() => remove(p.email)} aria-label={`Remove ${p.email}`}>\n remove\n</button>';
    expect(dangerButtonsWithoutQuestion(remove)).toEqual(["remove"]);
    expect(
      dangerButtonsWithoutQuestion(`<button className="btn" onClick={() => cancel.mutate({ id })}>Cancel job</button>`),
    ).toEqual(["Cancel job"]);
    expect(dangerButtonsWithoutQuestion(`<button className="btn small" onClick={onNo}>Cancel</button>`)).toEqual([]);
  });

  it("finds a select that acts on change without asking, and a question skipped in some state", () => {
    const role = `<select aria-label={\`Role of \${u.email}\`} onChange={(e) => update.mutate({ id: u.id, change: { role: e.target.value } })}>\n</select>`;
    expect(actingSelectsWithoutQuestion(role)).toEqual(["Role of ${u.email}"]);
    const onlyRunning = `<button className="btn danger" onClick={() => { if (\n job.state !== "RUNNING" ||\n confirm(q)\n) cancel.mutate({ id }); }}>Cancel job</button>`;
    expect(skippedQuestions(onlyRunning)).toEqual(['job.state !== "RUNNING"']);
  });

  it("every destructive button on every page asks before it acts", () => {
    const found = pageSources().flatMap(({ file, source }) => dangerButtonsWithoutQuestion(source).map((b) => `${file}: ${b}`));
    expect(found).toEqual([]);
  });

  it("every select that acts on change asks before it acts", () => {
    const found = pageSources().flatMap(({ file, source }) => actingSelectsWithoutQuestion(source).map((s) => `${file}: ${s}`));
    expect(found).toEqual([]);
  });

  it("skips its question only where nothing is lost (pending jobs are cancelled for good, so they ask too)", () => {
    const found = pageSources().flatMap(({ file, source }) => skippedQuestions(source).map((c) => `${file}: ${c}`));
    expect(found.sort()).toEqual([...HARMLESS_WITHOUT_QUESTION].sort());
  });

  it("asks before a role change only where it takes power away, and says what it does", () => {
    expect(takesPowerAway("ADMIN", "RESEARCHER")).toBe(true);
    expect(takesPowerAway("MANAGER", "OPERATOR")).toBe(true);
    expect(takesPowerAway("OPERATOR", "RESEARCHER")).toBe(true);
    expect(takesPowerAway("RESEARCHER", "MANAGER")).toBe(false);
    expect(takesPowerAway("MANAGER", "ADMIN")).toBe(false);
    expect(roleChangeQuestion("Ada Lovelace", "ada@lab.example", "ADMIN", "MANAGER")).toBe(
      "Make Ada Lovelace (ada@lab.example) a manager instead of an admin? What only an admin may do stops for them at once.",
    );
    expect(cancelJobQuestion(42, false)).toBe(
      "Cancel job #42? It leaves the queue and will not run; to run it later, submit it again.",
    );
  });
});
