import { describe, expect, it } from "vitest";
import { pageSources } from "./page-sources";

/**
 * A red (danger) button revokes, archives, cancels, drains or signs someone out: one slip of the mouse
 * must not do that. Each such button asks first, with confirm() in its own click handler.
 */
export function dangerButtonsWithoutQuestion(source: string): string[] {
  return [...source.matchAll(/<button\b[\s\S]*?<\/button>/g)]
    .map((m) => m[0])
    .filter((b) => /className=(?:"[^"]*|\{`[^`]*)\bdanger\b/.test(b) && !/\bconfirm\(/.test(b))
    .map((b) => b.replace(/\s+/g, " ").replace(/^.*>\s*([^<>]*?)\s*<\/button>$/, "$1"));
}

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

  it("every danger button on every page asks before it acts", () => {
    const found = pageSources().flatMap(({ file, source }) => dangerButtonsWithoutQuestion(source).map((b) => `${file}: ${b}`));
    expect(found).toEqual([]);
  });
});
