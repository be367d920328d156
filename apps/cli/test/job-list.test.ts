import { describe, expect, it } from "vitest";
import type { JobView } from "@tranche/contracts";
import { JOB_LIST_HEAD, arrayListRow, jobListRow } from "../src/job-list";

const NOW = Date.parse("2026-12-07T07:00:00Z");

const job = (over: Partial<JobView>): JobView =>
  ({
    id: 181,
    name: "flaky",
    cluster: "b200",
    budget: "lab/language/pretraining",
    gpus: 1,
    state: "PENDING",
    submittedAt: "2026-12-07T06:50:00Z",
    startedAt: null,
    finishedAt: null,
    exitCode: null,
    reason: null,
    array: null,
    ...over,
  }) as JobView;

const row = (over: Partial<JobView>) => Object.fromEntries(JOB_LIST_HEAD.map((h, i) => [h, jobListRow(job(over), NOW)[i]]));

describe("tranche ls rows", () => {
  it("names each job beside its id, as squeue does, cutting a long name", () => {
    expect(row({}).NAME).toBe("flaky");
    expect(row({ name: "pretrain-llama-70b-long-context-ablation" }).NAME).toBe("pretrain-llama-70b-long…");
  });

  it("says how an ended job ended and when, as sacct does", () => {
    const ended = { finishedAt: "2026-12-07T06:58:00Z" };
    expect(row({ ...ended, state: "FAILED", exitCode: 7 }).WHY).toBe("exit code 7, ended 2 min ago");
    expect(row({ ...ended, state: "KILLED", exitCode: 143 }).WHY).toBe("at its maximum runtime, ended 2 min ago");
    expect(row({ ...ended, state: "LOST" }).WHY).toBe("lost with its node, ended 2 min ago");
    expect(row({ ...ended, state: "PREEMPTED", exitCode: 143 }).WHY).toBe("preempted, not requeued, ended 2 min ago");
    expect(row({ ...ended, state: "COMPLETED", exitCode: 0 }).WHY).toBe("ended 2 min ago");
    expect(row({ ...ended, state: "CANCELLED" }).WHY).toBe("ended 2 min ago");
  });

  it("keeps a waiting job's reason and a running job's time", () => {
    expect(row({ reason: { code: "HELD", sentence: "Held by its owner.", position: null, details: {} } }).WHY).toBe(
      "Held by its owner.",
    );
    expect(row({}).WHY).toBe("waiting for the next cycle");
    expect(row({ state: "RUNNING", startedAt: "2026-12-07T06:59:30Z" }).WHY).toBe("running 30 s");
  });
});

describe("tranche ls: a job array as one line", () => {
  it("says where its tasks stand and how to list them, in the web's words", () => {
    const a = {
      id: 120,
      name: "sweep",
      spec: "0-99%10",
      cluster: "b200",
      budget: "lab/nlp",
      user: { id: "u", name: "Rita" },
      gpus: 1,
      tasks: 100,
      states: { PENDING: 48, RUNNING: 20, COMPLETED: 27, FAILED: 5 },
      lastActivityAt: "2026-12-07T06:58:00Z",
    };
    expect(Object.fromEntries(JOB_LIST_HEAD.map((h, i) => [h, arrayListRow(a, NOW)[i]]))).toEqual({
      ID: "120 (array 0-99%10)",
      NAME: "sweep",
      STATE: "ARRAY",
      CLUSTER: "b200",
      BUDGET: "lab/nlp",
      GPUS: 1,
      AGE: "2 min",
      STARTS: "",
      WHY: "array of 100: 48 pending, 20 running, 27 completed, 5 failed (tranche ls --array 120)",
    });
  });
});
