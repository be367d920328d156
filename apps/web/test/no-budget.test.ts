import { describe, expect, it } from "vitest";
import { noBudgetWords } from "../lib/words";
import { pageSources } from "./page-sources";

/**
 * A new user in no budget read "Budget: You are not a member of any budget" on /submit and
 * /sessions/new, with the rest of the form active and nothing saying whom to ask.
 */
describe("a person in no budget", () => {
  it("is told whom to ask (a manager of their group, or an admin)", () => {
    expect(noBudgetWords([])).toMatch(/Ask a manager of your group or an admin to add you to a budget\.$/);
    expect(noBudgetWords(undefined)).toBeNull();
    expect(noBudgetWords([{ path: "lab/vision" }])).toBeNull();
  });

  it("cannot press Submit or Start a session", () => {
    const forms = pageSources().filter(({ file }) => /submit-form\.tsx$|start-session-form\.tsx$/.test(file));
    expect(forms).toHaveLength(2);
    for (const { file, source } of forms) {
      expect(`${file}: ${/type="submit"\s+disabled=\{[^}]*noBudgetWords\(budgets\.data\) !== null/.test(source)}`).toBe(
        `${file}: true`,
      );
    }
  });
});
