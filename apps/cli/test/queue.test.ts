import { describe, expect, it } from "vitest";
import type { JobView } from "@tranche/contracts";
import { JOB_LIST_HEAD, jobListRow } from "../src/job-list";
import { placeText, queueText, type QueueResponse } from "../src/queue";

const NOW = Date.parse("2026-12-07T07:00:00Z");
const at = (s: number) => new Date(NOW + s * 1000).toISOString();

const row = (over: Partial<QueueResponse["pending"][number]>): QueueResponse["pending"][number] => ({
  id: 42,
  position: 3,
  budget: "lab/vision/video",
  user: "Ada",
  gpus: 8,
  lane: "ALLOCATED",
  queuedAt: at(-600),
  reasonCode: "CAPACITY",
  reasonSentence: "Not enough free GPUs.",
  estimatedStartAt: null,
  estimatedStartWhy: null,
  estimatedStartAfter: [],
  state: "PENDING",
  ...over,
});

const queue = (pending: QueueResponse["pending"], budget: string | null = null): QueueResponse => ({
  cluster: { name: "h100", gpus: 64, readyGpus: 64 },
  budget,
  cycle: { at: at(-5) },
  counts: { pending: pending.length, held: 0, running: 2, pendingGpus: 8, runningGpus: 16 },
  pending,
});

describe("tranche queue", () => {
  it("says which budget it was narrowed to, and that its subtree is in it", () => {
    const text = queueText(queue([row({})], "lab/vision"), NOW);
    expect(text.split("\n")[0]).toBe(
      "h100, budget lab/vision and below: 2 running (16/64 GPUs), 1 pending (8 GPUs); latest cycle 5 s ago",
    );
    expect(queueText(queue([], "lab/vision"), NOW)).toContain("No pending jobs in lab/vision or below.");
    expect(queueText(queue([]), NOW).split("\n")[0]).toMatch(/^h100: 2 running/);
  });

  it("says what an empty place or start means instead of a dash or 'unknown'", () => {
    expect(placeText({ state: "HELD", position: null })).toBe("held");
    expect(placeText({ state: "PENDING", position: null })).toBe("not in line");
    expect(placeText({ state: "PENDING", position: 4 })).toBe(4);
    const text = queueText(
      queue([
        row({ id: 1 }),
        row({ id: 2, estimatedStartWhy: "it can never fit this cluster" }),
        row({ id: 3, state: "HELD", position: null, estimatedStartWhy: "it is held" }),
        row({ id: 4, estimatedStartAt: at(40 * 60) }),
      ]),
      NOW,
    );
    const line = (id: number) => text.split("\n").find((l) => new RegExp(`^(\\d+|held|not in line) +${id} +lab/`).test(l)) ?? "";
    expect(line(1)).toMatch(/^3 +1 .* no estimate yet +Not enough free GPUs\.$/);
    expect(line(2)).toContain(" never, as it stands ");
    expect(line(3)).toMatch(/^held +3 .* not while held /);
    expect(line(4)).toContain(" ~40 min ");
    expect(text).not.toMatch(/ — | unknown /);
  });
});

describe("tranche ls", () => {
  const job = (over: Partial<JobView>): JobView =>
    ({
      id: 181,
      name: "sweep",
      cluster: "b200",
      budget: "lab/nlp",
      gpus: 1,
      state: "PENDING",
      submittedAt: at(-600),
      startedAt: null,
      finishedAt: null,
      exitCode: null,
      reason: null,
      array: null,
      estimatedStartAt: null,
      estimatedStartWhy: null,
      estimatedStartAfter: [],
      ...over,
    }) as JobView;
  const starts = (over: Partial<JobView>) => jobListRow(job(over), NOW)[JOB_LIST_HEAD.indexOf("STARTS")];

  it("gives a waiting job's start in the queue's words, and none for a running one", () => {
    expect(starts({})).toBe("no estimate yet");
    expect(starts({ state: "HELD", estimatedStartWhy: "it is held" })).toBe("not while held");
    expect(starts({ estimatedStartAt: at(3000) })).toBe("~50 min");
    expect(starts({ state: "RUNNING", startedAt: at(-60) })).toBe("");
  });
});
