import { describe, expect, it } from "vitest";
import type { JobView } from "@tranche/contracts";
import { explainText, type JobDetail } from "../src/explain";

const NOW = Date.parse("2026-12-06T18:00:00Z");

const job = (over: Partial<JobView>): JobView => ({
  id: 492,
  name: "pretrain-7b",
  cluster: "h100",
  budget: "lab/language/pretraining",
  user: { id: "u", name: "Ada", email: "ada@tranche.example" },
  gpus: 8,
  minRuntime: 7200,
  maxRuntime: null,
  resumable: true,
  requeue: false,
  priority: 0,
  gracePeriod: null,
  command: "python train.py",
  env: {},
  secretEnvNames: [],
  state: "PENDING",
  submittedAt: "2026-12-06T17:50:00Z",
  queuedAt: "2026-12-06T17:50:00Z",
  startedAt: null,
  protectedUntil: null,
  graceUntil: null,
  finishedAt: null,
  exitCode: null,
  requeueCount: 0,
  heldBy: null,
  squattingSince: null,
  lastCheckpointAt: null,
  estimatedStartAt: null,
  estimatedStartWhy: null,
  estimatedStartAfter: [],
  estimatedAt: null,
  reason: { code: "NO_CAPACITY", sentence: "Waiting for 8 GPUs on one node.", position: 2, details: {} },
  lane: "ALLOCATED",
  array: null,
  after: [],
  retries: { max: 0, used: 0 },
  nodes: [],
  excludeNodes: [],
  kind: "BATCH",
  session: null,
  ...over,
});

const detail = (j: JobView): JobDetail => ({
  job: j,
  events: [{ at: "2026-12-06T17:50:00Z", kind: "SUBMITTED", reasonCode: null, sentence: "Submitted by Ada." }],
  segments: [],
});

const explained = (over: Partial<JobView>) => explainText(detail(job(over)), NOW, "UTC").split("\n");

describe("tranche explain", () => {
  it("says when a pending job is expected to start and after which jobs, in the job page's words", () => {
    const lines = explained({
      estimatedStartAt: "2026-12-06T19:15:00Z",
      estimatedStartAfter: [491],
      estimatedAt: "2026-12-06T17:59:30Z",
    });
    expect(lines.slice(1, 3)).toEqual([
      "Why it waits: Waiting for 8 GPUs on one node.",
      "Expected to start within about 1 h 15 min (sooner if running jobs end early), after #491 (6 Dec, 19:15:00).",
    ]);
  });

  it("says the nodes a job names in words, and nothing for a job that may run anywhere", () => {
    expect(explained({ nodes: ["gpu-03", "gpu-04"], excludeNodes: ["gpu-07"] })[1]).toBe(
      "Nodes: Runs only on gpu-03 or gpu-04, never on gpu-07.",
    );
    expect(explained({ excludeNodes: ["gpu-07"] })[1]).toBe("Nodes: Never runs on gpu-07.");
    expect(explained({}).join("\n")).not.toContain("Nodes:");
  });

  it("says the state in words, as the web's badge does, not as its code", () => {
    expect(explained({})[0]).toMatch(/^Job #492 pretrain-7b: Pending · 8 GPUs on h100 · /);
    expect(explained({ state: "COMPLETED", reason: null })[0]).toMatch(/^Job #492 pretrain-7b: Completed · /);
  });

  it("says why the start cannot be forecast, and nothing of a forecast the scheduler has not made yet", () => {
    expect(explained({ state: "HELD", estimatedStartWhy: "it is held" })[2]).toBe("Start time unknown: it is held.");
    const none = explained({});
    expect(none.slice(1, 3)).toEqual(["Why it waits: Waiting for 8 GPUs on one node.", ""]);
    expect(none.join("\n")).not.toMatch(/expected|forecast/i);
  });

  it("counts a running job's protection down as the job page does, never saying less than is left", () => {
    const running = { state: "RUNNING" as const, startedAt: "2026-12-06T17:50:35Z" };
    expect(explained({ ...running, protectedUntil: "2026-12-06T18:09:25Z" })[1]).toBe(
      "Protected for 9 min 25 s more, then interruptible.",
    );
    expect(explained({ ...running, protectedUntil: "2026-12-06T19:30:00Z" })[1]).toBe(
      "Protected for 1 h 30 min more, then interruptible.",
    );
    expect(explained({ ...running, protectedUntil: "2026-12-06T17:59:00Z" })[1]).toBe("Interruptible: its protection has ended.");
  });

  it("never says a job with a zero minimum runtime had protection that ended", () => {
    const running = { state: "RUNNING" as const, startedAt: "2026-12-06T17:50:35Z", protectedUntil: "2026-12-06T17:50:35Z" };
    expect(explained({ ...running, minRuntime: 0, lane: "UNALLOCATED" })[1]).toBe(
      "Interruptible from its start: a zero minimum runtime has no protected time.",
    );
  });

  it("says when a job last reported a checkpoint, and how to report one while a resumable job has none", () => {
    const running = { state: "RUNNING" as const, startedAt: "2026-12-06T17:50:35Z", protectedUntil: "2026-12-06T19:30:00Z" };
    expect(explained({ ...running, lastCheckpointAt: "2026-12-06T17:59:35.400Z" })[2]).toBe(
      "Last checkpoint: 25 s ago (6 Dec, 17:59:35).",
    );
    expect(explained(running)[2]).toBe(
      "Last checkpoint: none reported yet (touch $TRANCHE_CHECKPOINT_DIR/.tranche-checkpoint after each one).",
    );
    // A job that promised no checkpoints, or has not run, hears nothing of them.
    expect(explained({ ...running, resumable: false }).join("\n")).not.toContain("checkpoint");
    expect(explained({}).join("\n")).not.toContain("checkpoint");
    // A requeued job waits to resume from it; an ended one resumes from nothing.
    expect(explained({ lastCheckpointAt: "2026-12-06T17:59:35Z" })).toContain("Last checkpoint: 25 s ago (6 Dec, 17:59:35).");
    expect(explained({ state: "COMPLETED", lastCheckpointAt: "2026-12-06T17:59:35Z" }).join("\n")).not.toContain("checkpoint");
  });
});
