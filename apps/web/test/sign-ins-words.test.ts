import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { SignInsView } from "../components/sign-ins-view";
import { renderWithAnswers } from "./support/render-with-answers";

const session = (id: string, device: string, current: boolean) => ({
  id,
  device,
  current,
  address: "10.0.0.7",
  signedInAt: "2026-12-07T08:00:00Z",
  lastSeenAt: "2026-12-07T09:00:00Z",
});

describe("Signed-in browsers", () => {
  it("marks the one in use as this browser, the word of its column and heading", () => {
    const { html } = renderWithAnswers(createElement(SignInsView), (api, qc) => {
      qc.setQueryData(api.signIns.mine.queryKey(), [
        session("a", "Chrome on Linux", true),
        session("b", "Firefox on Linux", false),
      ] as never);
    });
    expect(html).toContain("<th>Browser</th>");
    expect(html).toContain("(this browser)");
    expect(html).not.toContain("device");
    expect(html).toContain('aria-label="Sign out Firefox on Linux"');
  });
});
