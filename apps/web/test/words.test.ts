import { describe, expect, it } from "vitest";
import { userChangedText } from "../lib/user-words";
import {
  chartGpuHours,
  gracePeriodText,
  labelAddsToTitle,
  logEmptyText,
  logFollowText,
  minRuntimeText,
  nodeStateText,
  placementText,
  plural,
  preemptionsText,
  promisedText,
  readOnlyText,
  reasonTimesText,
  runEndText,
  runningTabLabel,
} from "../lib/words";

describe("plural", () => {
  it("says one GPU, never 1 GPUs", () => {
    expect(plural(1, "GPU")).toBe("1 GPU");
    expect(plural(0, "GPU")).toBe("0 GPUs");
    expect(plural(2048, "GPU")).toBe("2,048 GPUs");
  });

  it("takes an irregular plural", () => {
    expect(plural(1, "person", "people")).toBe("1 person");
    expect(plural(3, "person", "people")).toBe("3 people");
  });
});

describe("runningTabLabel", () => {
  it("counts the running tab as the Running tile does, starts waiting for exits apart", () => {
    expect(runningTabLabel(21, 1)).toBe("Running (21 + 1 starting)");
    expect(runningTabLabel(21, 0)).toBe("Running (21)");
  });
});

describe("a run's placement and end, in words", () => {
  it("says all 8 GPUs for a whole node and lists the indexes of a part", () => {
    expect(placementText([0, 1, 2, 3, 4, 5, 6, 7], 8)).toBe("all 8 GPUs");
    expect(placementText([2, 5], 8)).toBe("GPUs 2, 5");
    expect(placementText([3], 8)).toBe("GPU 3");
  });

  it("names how a run ended without the stored code", () => {
    expect(runEndText("FINISH")).toBe("finished");
    expect(runEndText("KILL")).toBe("stopped at its maximum runtime");
    expect(runEndText(null)).toBe("");
  });
});

describe("promisedText", () => {
  it("never reads as GPUs added to those in use", () => {
    expect(promisedText(8)).toBe("8 GPUs promised to starts waiting for preempted jobs to exit");
    expect(promisedText(1)).toBe("1 GPU promised to starts waiting for preempted jobs to exit");
    expect(promisedText(8)).not.toMatch(/^\+/);
  });
});

describe("minRuntimeText", () => {
  it("says a job without a minimum runtime has none, not 0 s", () => {
    expect(minRuntimeText(0, (s) => `${s} s`)).toBe("none (unallocated)");
    expect(minRuntimeText(900, (s) => `${s / 60} min`)).toBe("15 min");
  });
});

describe("reasonTimesText", () => {
  const clock = (iso: string) => `<${iso}>`;
  it("never shows a reason's earliest start (a lower bound) as a time beside the forecast", () => {
    const details = { earliestStart: "2026-12-02T07:10:00.000Z", position: 3 };
    expect(reasonTimesText("CONTRACTS", details, clock)).toBeNull();
    expect(reasonTimesText("CAPACITY", details, clock)).toBeNull();
  });

  it("says when the job holding a reservation can start there", () => {
    expect(reasonTimesText("RESERVED_FOR", { reservedFrom: "2026-12-02T07:10:00.000Z" }, clock)).toBe(
      "reserved from <2026-12-02T07:10:00.000Z>",
    );
    expect(reasonTimesText("RESERVED_FOR", {}, clock)).toBeNull();
  });
});

describe("labelAddsToTitle", () => {
  it("leaves out a reason label that only repeats the timeline entry's title", () => {
    expect(labelAddsToTitle("Finished", "finished")).toBe(false);
    expect(labelAddsToTitle("Failed", "failed")).toBe(false);
    expect(labelAddsToTitle("Started", "on free GPUs")).toBe(true);
    expect(labelAddsToTitle("Killed at its maximum runtime", "killed")).toBe(false);
    expect(labelAddsToTitle("Back in the queue", "preempted")).toBe(true);
  });
});

describe("gracePeriodText", () => {
  const defaults = { gracePeriod: 120, unallocatedGracePeriod: 10 };
  const fmt = (s: number) => (s >= 60 ? `${s / 60} min` : `${s} s`);
  it("says the default's value, never a bare 'default'", () => {
    expect(gracePeriodText({ gracePeriod: null, lane: "ALLOCATED" }, defaults, fmt)).toBe("2 min (the default)");
    expect(gracePeriodText({ gracePeriod: null, lane: "DEBUG" }, defaults, fmt)).toBe("2 min (the default)");
    expect(gracePeriodText({ gracePeriod: null, lane: "UNALLOCATED" }, defaults, fmt)).toBe(
      "10 s (the default for unallocated work)",
    );
  });
  it("says a grace period the job asked for as it is", () => {
    expect(gracePeriodText({ gracePeriod: 300, lane: "ALLOCATED" }, defaults, fmt)).toBe("5 min");
  });
});

describe("logEmptyText", () => {
  it("never tells a running job's owner that its logs come once it runs on a node", () => {
    expect(logEmptyText(true)).toBe("It has printed nothing yet; what it prints shows here within seconds.");
    expect(logEmptyText(false)).toBe("Logs appear here once the job runs on a node.");
  });
});

describe("logFollowText", () => {
  it("offers no following once the job has ended and its output is all in", () => {
    expect(logFollowText({ live: false, atEnd: true, follow: true, running: false })).toBe(
      "the end of the output: the job has ended",
    );
    expect(logFollowText({ live: false, atEnd: false, follow: false, running: false })).toBe("the job has ended");
  });
  it("follows while more output can come", () => {
    expect(logFollowText({ live: true, atEnd: true, follow: true, running: true })).toBe("following the end of the output live");
    expect(logFollowText({ live: true, atEnd: true, follow: true, running: false })).toBe("following the end of the output");
    expect(logFollowText({ live: true, atEnd: true, follow: false, running: true })).toBe("not following");
  });
});

describe("readOnlyText", () => {
  it("speaks of 'the subtree you manage' only to someone who manages one", () => {
    expect(readOnlyText([])).toBe("Read only: only its managers can change it");
    expect(readOnlyText(["lab/vision"])).toBe("Read only: outside the subtree you manage");
  });
});

describe("chartGpuHours", () => {
  it("keeps one decimal for small usage, as the budgets page shows it", () => {
    expect(chartGpuHours(1.26)).toBe(1.3);
    expect(chartGpuHours(0.4)).toBe(0.4);
    expect(chartGpuHours(1234.4)).toBe(1234);
  });
});

describe("nodeStateText", () => {
  it("says a node's state in words, never its stored code", () => {
    expect(nodeStateText("READY")).toBe("ready");
    expect(nodeStateText("DRAINING")).toBe("draining");
    expect(nodeStateText("REPAIR")).toBe("in repair");
    expect(nodeStateText("DOWN")).toBe("down");
  });
});

describe("preemptionsText", () => {
  it("says the GPU-hours the stopped runs had run, then each reason in words, never its code", () => {
    const text = preemptionsText({
      count: 4,
      moves: 1,
      gpuHours: 36.4,
      byReason: [
        { reason: "FAIR_SHARE", count: 3 },
        { reason: "DEBUG_LANE", count: 1 },
      ],
    });
    expect(text).toBe("36 GPU-h had run · for a budget further below its share (3) · for a debug-lane job (1)");
    expect(text).not.toMatch(/[A-Z]{2,}_[A-Z]/);
    expect(preemptionsText({ count: 1, moves: 0, gpuHours: 2.25, byReason: [{ reason: "DRAIN", count: 1 }] })).toBe(
      "2.3 GPU-h had run · its node is draining (1)",
    );
    // Runs whose reason is unknown (stored before it was kept): the hours alone, no dangling separator.
    expect(preemptionsText({ count: 2, moves: 0, gpuHours: 0.1, byReason: [] })).toBe("0.1 GPU-h had run");
  });

  it("says none, and the moves when there were some", () => {
    expect(preemptionsText({ count: 0, moves: 0, gpuHours: 0, byReason: [] })).toBe("none in this window");
    expect(preemptionsText({ count: 0, moves: 2, gpuHours: 0, byReason: [] })).toBe("none · 2 moves to free GPUs");
  });
});

describe("userChangedText", () => {
  it("says what a change on the Users page did, not just that it was saved", () => {
    const ada = { name: "Ada Lovelace", role: "MANAGER", disabled: false };
    expect(userChangedText(ada, { role: "MANAGER" })).toBe("Ada Lovelace is now a manager.");
    expect(userChangedText({ ...ada, role: "ADMIN" }, { role: "ADMIN" })).toBe("Ada Lovelace is now an admin.");
    expect(userChangedText({ ...ada, disabled: true }, { disabled: true })).toBe(
      "Ada Lovelace is disabled: their sign-ins and API tokens no longer work.",
    );
    expect(userChangedText(ada, { disabled: false })).toBe("Ada Lovelace may sign in again.");
  });
});
