import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { ArrayRowView } from "@tranche/contracts";
import { ArrayRow } from "../app/(app)/jobs/array-row";

const NOW = Date.parse("2026-12-07T10:00:00Z");
const array: ArrayRowView = {
  id: 120,
  name: "sweep",
  spec: "0-99%10",
  cluster: "h100",
  budget: "lab/nlp",
  user: { id: "u", name: "Rita Researcher" },
  gpus: 1,
  tasks: 100,
  states: { PENDING: 48, RUNNING: 20, COMPLETED: 27, FAILED: 5 },
  lastActivityAt: "2026-12-07T09:58:00Z",
};
const row = (showUser = false) =>
  renderToStaticMarkup(
    createElement("table", null, createElement("tbody", null, createElement(ArrayRow, { array, showUser, now: NOW }))),
  );

describe("a job array's row in My jobs", () => {
  it("says where its tasks stand and when one last moved, linking to its page", () => {
    const html = row();
    expect(html).toContain('<a href="/arrays/120">array <span class="mono">#120</span> sweep</a>');
    expect(html).toContain("array of 100: 48 pending, 20 running, 27 completed, 5 failed");
    expect(html).toContain("last activity 2 min ago");
    expect(html).toContain('<a href="/arrays/120">see its 100 tasks</a>');
    expect(html).not.toContain("Rita Researcher");
    expect(row(true)).toContain("Rita Researcher");
  });
});
