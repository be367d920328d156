import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { UsersList } from "../app/(app)/admin/users/users-list";
import { userCountText } from "../lib/user-words";
import { renderWithAnswers } from "./support/render-with-answers";

const notice = { notice: null, ok: () => {}, fail: () => {}, clear: () => {} };
const person = (i: number) => ({
  id: `u${i}`,
  email: `person${i}@lab.example`,
  name: `Person ${i}`,
  role: "RESEARCHER" as const,
  disabled: false,
  createdAt: "2026-12-01T10:00:00.000Z",
  hasPassword: false,
});

describe("the Users page at a lab's size", () => {
  it("asks the server for the first 25 people and says how many there are in all", () => {
    const { html, asked } = renderWithAnswers(createElement(UsersList, { notice, onLink: () => {} }), (api, qc) =>
      qc.setQueryData(api.admin.userPage.queryKey({ q: "", limit: 25, offset: 0 }), {
        users: Array.from({ length: 25 }, (_, i) => person(i)),
        total: 312,
        offset: 0,
      }),
    );
    expect(asked).toEqual([{ path: "admin.userPage", input: { q: "", limit: 25, offset: 0 } }]);
    expect(html).toContain("312 people, 25 shown");
    expect(html).toContain("person24@lab.example");
    expect(html).toContain('aria-label="Find a user by name or e-mail"');
    expect(html).toContain("Next page");
  });

  it("says the count in words: a later page, a search, one person, nobody", () => {
    expect(userCountText(312, 25, 25, "")).toBe("312 people, 26 to 50 shown");
    expect(userCountText(12, 0, 12, "ada")).toBe("12 people match “ada”, 12 shown");
    expect(userCountText(1, 0, 1, "ada")).toBe("1 person matches “ada”, 1 shown");
    expect(userCountText(1_204, 0, 25, "")).toBe("1,204 people, 25 shown");
    expect(userCountText(0, 0, 0, "50%")).toBe("No one's name or e-mail holds “50%”.");
    expect(userCountText(0, 0, 0, "")).toBe("No users yet.");
  });
});
