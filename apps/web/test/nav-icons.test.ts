import { describe, expect, it } from "vitest";
import { NAV_ITEMS } from "../components/shell";

describe("the sidebar's icons", () => {
  it("gives each link an icon of its own, so two links never look alike", () => {
    const byIcon = new Map<string, string[]>();
    for (const i of NAV_ITEMS) byIcon.set(i.ico, [...(byIcon.get(i.ico) ?? []), i.label]);
    expect([...byIcon.values()].filter((labels) => labels.length > 1)).toEqual([]);
  });
});
