import { describe, expect, it } from "vitest";
import { JOB_EVENT_KINDS, jobEventTitle } from "../src/job-events";
import { explainContract } from "../src/job";

// The job page's timeline titles come from a fixed map, never from the event's code.
describe("job event titles", () => {
  it("give every event kind a plain phrase of its own", () => {
    for (const kind of JOB_EVENT_KINDS) {
      const title = jobEventTitle(kind);
      // A sentence-case phrase: no underscores, no word in capitals but "GPUs".
      expect(title, kind).toMatch(/^[A-Z][a-z]+([ ,:]+[A-Za-z]+)*$/);
      expect(title, kind).not.toMatch(/_|\b(?!GPUs?\b)[A-Z]{2,}/);
    }
    expect(new Set(JOB_EVENT_KINDS.map(jobEventTitle)).size).toBe(JOB_EVENT_KINDS.length);
    expect(jobEventTitle("PREEMPTED")).toBe("Preempted: asked to stop");
    expect(jobEventTitle("PREEMPTED_ENDED")).toBe("Preempted, not requeued");
  });

  it("read a kind this version does not know as 'Event', never its code", () => {
    expect(jobEventTitle("SOMETHING_NEW")).toBe("Event");
  });
});

describe("a contract in words", () => {
  it("says a preempted job is asked to stop, without signal names", () => {
    for (const resumable of [true, false]) {
      const text = explainContract({ gpus: 8, minRuntime: 7200, resumable }).sentences.join(" ");
      expect(text).toContain("If preempted it is asked to stop and has 2 min");
      expect(text).not.toMatch(/SIG(TERM|KILL)/);
    }
  });
});
