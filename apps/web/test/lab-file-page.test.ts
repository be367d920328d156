import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { LabImportResult } from "@tranche/contracts";
import { LabChanges, LabProblems } from "../app/(app)/admin/lab/lab-changes";
import { LabView } from "../app/(app)/admin/lab/lab-view";
import { renderWithAnswers } from "./support/render-with-answers";

const result = (dryRun: boolean): LabImportResult => ({
  dryRun,
  usersCreated: 1,
  usersChanged: 0,
  nodesCreated: 1,
  membersAdded: 1,
  managersAdded: 0,
  sharesChanged: 0,
  changes: [
    "create user lin@lab.example (researcher)",
    "create tree node lab/language/agents",
    "add lin@lab.example as a member of lab/language/agents",
  ],
  grouped: {
    users: ["create user lin@lab.example (researcher)"],
    tree: ["create tree node lab/language/agents"],
    managers: [],
    members: ["add lin@lab.example as a member of lab/language/agents"],
    shares: [],
  },
  passwordLinks: dryRun
    ? []
    : [{ email: "lin@lab.example", setPasswordUrl: "http://lab.example/set-password?token=t", expiresAt: "x" }],
});
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim();

describe("the admins' lab file page", () => {
  it("starts with an empty text box: Check and Import wait for text, Import for a check of it", () => {
    const { html } = renderWithAnswers(createElement(LabView), () => {});
    expect(html).toContain('aria-label="Lab file"');
    expect(html).toContain('aria-label="Upload a lab file"');
    expect(html).toMatch(/<button class="btn" disabled="">Check<\/button>/);
    expect(html).toMatch(/<button class="btn primary" disabled="">Import<\/button>/);
    expect(text(html)).toContain("Import is possible after a check of this text finds changes.");
    expect(html).toContain("Download the lab as a lab file");
  });

  it("lists what a check found by kind, counts first, leaving out kinds with nothing", () => {
    const t = text(renderToStaticMarkup(createElement(LabChanges, { result: result(true) })));
    expect(t).toBe(
      "The import would change: 1 user created, 1 tree node created, 1 member added. " +
        "Users (1) would create user lin@lab.example (researcher) " +
        "Tree (1) would create tree node lab/language/agents " +
        "Members (1) would add lin@lab.example as a member of lab/language/agents",
    );
  });

  it("after an import, says what was done and lists the new users' set-password links", () => {
    const t = text(renderToStaticMarkup(createElement(LabChanges, { result: result(false) })));
    expect(t).toMatch(/^Imported: 1 user created, 1 tree node created, 1 member added\. Users \(1\) create user/);
    expect(t).toContain("lin@lab.example: http://lab.example/set-password?token=t");
    const none = { ...result(true), changes: [], grouped: { users: [], tree: [], managers: [], members: [], shares: [] } };
    expect(text(renderToStaticMarkup(createElement(LabChanges, { result: none })))).toBe(
      "Nothing to change: the lab already has everything in this file.",
    );
  });

  it("shows a refusal's problems each at the place in the file the server names", () => {
    const html = renderToStaticMarkup(
      createElement(LabProblems, {
        error: {
          message:
            "The file has 2 problems; nothing was changed: tree[0]: unknown field colour; users[1].email: is not an e-mail address",
          issues: [
            { path: "tree[0]", message: "unknown field colour" },
            { path: "users[1].email", message: "is not an e-mail address" },
          ],
        },
      }),
    );
    expect(html).toContain('role="alert"');
    expect(text(html)).toBe(
      "The file has 2 problems; nothing was changed. tree[0] : unknown field colour users[1].email : is not an e-mail address",
    );
    expect(
      text(
        renderToStaticMarkup(
          createElement(LabProblems, { error: { message: "The lab file is not valid YAML (line 2)", issues: [] } }),
        ),
      ),
    ).toBe("The lab file is not valid YAML (line 2).");
  });
});
