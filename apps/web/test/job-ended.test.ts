import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { JobEnded } from "../app/(app)/jobs/job-ended";

const NOW = Date.parse("2026-12-07T07:00:00Z");
const ended = (state: string, exitCode: number | null, finishedAt: string | null = "2026-12-07T06:58:00Z") =>
  renderToStaticMarkup(createElement(JobEnded, { job: { state: state as never, exitCode, finishedAt }, now: NOW }));

describe("the jobs list's words for an ended job", () => {
  it("says how it ended and when, in the words of `tranche ls`", () => {
    expect(ended("FAILED", 7)).toContain(">Exit code 7, ended 2 min ago<");
    expect(ended("KILLED", 137)).toContain(">At its maximum runtime, ended 2 min ago<");
    expect(ended("LOST", null)).toContain(">Lost with its node, ended 2 min ago<");
    expect(ended("PREEMPTED", 143)).toContain(">Preempted, not requeued, ended 2 min ago<");
  });

  it("says only when for an end its state already tells, and no raw time", () => {
    expect(ended("COMPLETED", 0)).toContain(">Ended 2 min ago<");
    expect(ended("CANCELLED", null)).toContain(">Ended 2 min ago<");
    expect(ended("FAILED", null, null)).toContain(">Ended<");
    expect(ended("FAILED", 7)).not.toMatch(/2026|T06/);
  });
});
