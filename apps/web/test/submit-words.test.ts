import { createElement } from "react";
import { describe, expect, it, vi } from "vitest";
import { renderWithAnswers } from "./support/render-with-answers";

vi.mock("next/navigation", () => ({ useRouter: () => ({ push: () => {} }) }));
const { SubmitForm } = await import("../app/(app)/submit/submit-form");

describe("the submit form's words", () => {
  it("says what the minimum runtime protects and what its 0 (unallocated) means, beside the preset", () => {
    const { html } = renderWithAnswers(createElement(SubmitForm), () => {});
    expect(html).toContain("0 (unallocated)");
    expect(html).toContain(
      "Nothing preempts it for this long after each start. 0: unallocated, free on idle GPUs and preemptible at any moment.",
    );
  });
});
