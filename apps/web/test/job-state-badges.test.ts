import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JOB_STATES } from "@tranche/contracts";

// The state badges of the job lists and the job page are coloured by a `.b-STATE` rule in globals.css
// (components/ui.tsx StateBadge); a state without one shows as an uncoloured word.
const css = readFileSync(join(__dirname, "..", "app", "globals.css"), "utf8");

/** The selectors of the rule that styles `.b-STATE`, or null when no rule does. */
function ruleOf(state: string): string[] | null {
  for (const m of css.matchAll(/([^{}]+)\{[^}]*\}/g)) {
    const selectors = m[1]!.split(",").map((s) => s.trim());
    if (selectors.includes(`.b-${state}`)) return selectors;
  }
  return null;
}

describe("the job state badges", () => {
  it("colour every job state", () => {
    expect(JOB_STATES.filter((s) => ruleOf(s) === null)).toEqual([]);
  });

  it("show a preempted job that was not requeued as a stop, not in a failure's red", () => {
    expect(ruleOf("PREEMPTED")).toContain(".b-warn");
    expect(ruleOf("PREEMPTED")).not.toContain(".b-bad");
  });
});
