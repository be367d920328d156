import { describe, expect, it } from "vitest";
import { makeCluster, makeJob } from "@tranche/testkit";
import {
  applyPlan,
  createClusterModel,
  defaultPolicy,
  jobStateOf,
  runCycle,
  runExited,
  runOutcome,
  snapshotOf,
  submitJob,
} from "../src/index";

const running = (requeue: boolean) => ({ stopping: false, intent: null, requeue });

describe("a run's outcome when the platform stopped it (R9 fencing, agent shutdown)", () => {
  it("treats a run its agent fenced as lost: requeued when it may be, else lost, never failed", () => {
    expect(runOutcome(running(true), { cause: "fenced", exitCode: null })).toEqual({
      end: "LOST",
      state: "PENDING",
      requeued: true,
      stoppedBy: "fence",
    });
    expect(runOutcome(running(false), { cause: "fenced", exitCode: 143 })).toEqual({
      end: "LOST",
      state: "LOST",
      requeued: false,
      stoppedBy: "fence",
    });
  });

  it("requeues a run stopped by its agent's shutdown as a preemption when it may be, else loses it, never fails it", () => {
    expect(runOutcome(running(true), { cause: "shutdown", exitCode: 143 })).toEqual({
      end: "PREEMPT",
      state: "PENDING",
      requeued: true,
      stoppedBy: "shutdown",
    });
    expect(runOutcome(running(false), { cause: "shutdown", exitCode: 143 })).toEqual({
      end: "LOST",
      state: "LOST",
      requeued: false,
      stoppedBy: "shutdown",
    });
  });

  it("lets a stop already asked for decide, whoever ended the processes", () => {
    for (const cause of ["fenced", "shutdown"] as const) {
      expect(runOutcome({ stopping: true, intent: "KILL", requeue: true }, { cause, exitCode: null }).state).toBe("KILLED");
      expect(runOutcome({ stopping: true, intent: "CANCEL", requeue: true }, { cause, exitCode: null }).state).toBe("CANCELLED");
      expect(runOutcome({ stopping: true, intent: "PREEMPT", requeue: false }, { cause, exitCode: null })).toMatchObject({
        state: "PREEMPTED",
        stoppedBy: null,
      });
    }
  });

  it("ends a run its job ended on its exit code, with no platform stop named", () => {
    expect(runOutcome(running(true), { cause: "exit", exitCode: 143 })).toEqual({
      end: "FAIL",
      state: "FAILED",
      requeued: false,
      stoppedBy: null,
    });
  });

  it("gives the cluster model the same rule: a fenced resumable job is pending again, a shut-down one too", () => {
    const s = makeCluster().nodes(1).budget("a", 1).snapshot();
    let m = createClusterModel(s.cluster, s.nodes, s.tree);
    m = submitJob(m, makeJob("r").budget("a").resumable().gpus(4).pending());
    m = submitJob(m, makeJob("n").budget("a").resumable(false).gpus(4).pending());
    const r = runCycle(snapshotOf(m), defaultPolicy, 0);
    m = applyPlan(m, r.plan, 0, r.reservations);
    expect([jobStateOf(m, "r"), jobStateOf(m, "n")]).toEqual(["RUNNING", "RUNNING"]);
    const fenced = runExited(runExited(m, "r", null, 50, "fenced"), "n", null, 50, "fenced");
    expect([jobStateOf(fenced, "r"), jobStateOf(fenced, "n")]).toEqual(["PENDING", "LOST"]);
    const shut = runExited(runExited(m, "r", 143, 50, "shutdown"), "n", 143, 50, "shutdown");
    expect([jobStateOf(shut, "r"), jobStateOf(shut, "n")]).toEqual(["PENDING", "LOST"]);
    const exited = runExited(m, "r", 143, 50);
    expect(jobStateOf(exited, "r")).toBe("FAILED");
  });
});

describe("a preempted run that is not requeued (R6)", () => {
  const preempted = (requeue: boolean, retries?: { max: number; used: number }) => ({
    stopping: true,
    intent: "PREEMPT" as const,
    requeue,
    retries,
  });

  it("ends PREEMPTED, not FAILED, whatever its exit: the scheduler stopped it, its code did not fail", () => {
    for (const exitCode of [143, 137, 1, 0, null])
      expect(runOutcome(preempted(false), { cause: "exit", exitCode })).toEqual({
        end: "PREEMPT",
        state: "PREEMPTED",
        requeued: false,
        stoppedBy: null,
      });
  });

  it("is requeued when the core said so, and is never a retry, retries left or not", () => {
    expect(runOutcome(preempted(true), { cause: "exit", exitCode: 143 })).toEqual({
      end: "PREEMPT",
      state: "PENDING",
      requeued: true,
      stoppedBy: null,
    });
    const out = runOutcome(preempted(false, { max: 3, used: 0 }), { cause: "exit", exitCode: 143 });
    expect([out.state, out.requeued, out.retry]).toEqual(["PREEMPTED", false, undefined]);
  });
});

describe("--retries: a run that failed by itself is requeued until its retries are used (runOutcome)", () => {
  const failing = (used: number, max = 2) => ({ stopping: false, intent: null, requeue: false, retries: { max, used } });
  const exit = (exitCode: number | null) => ({ cause: "exit" as const, exitCode });

  it("requeues a non-zero exit as retry used+1 while retries are left; the last failure is final", () => {
    expect(runOutcome(failing(0), exit(3))).toEqual({ end: "FAIL", state: "PENDING", requeued: true, stoppedBy: null, retry: 1 });
    expect(runOutcome(failing(1), exit(null))).toMatchObject({ state: "PENDING", requeued: true, retry: 2 });
    expect(runOutcome(failing(2), exit(3))).toEqual({ end: "FAIL", state: "FAILED", requeued: false, stoppedBy: null });
    expect(runOutcome(failing(0, 0), exit(3)).state).toBe("FAILED");
    expect(runOutcome({ stopping: false, intent: null, requeue: false }, exit(3)).state).toBe("FAILED");
  });

  it("never retries a success, a launch failure, a platform stop or a stop someone asked for", () => {
    expect(runOutcome(failing(0), exit(0)).state).toBe("COMPLETED");
    expect(runOutcome(failing(0), { cause: "launch-failed", exitCode: null })).toEqual({
      end: "FAIL",
      state: "FAILED",
      requeued: false,
      stoppedBy: null,
    });
    for (const cause of ["fenced", "shutdown", "lost"] as const) {
      const out = runOutcome(failing(0), { cause, exitCode: 143 });
      expect([out.state, out.retry]).toEqual(["LOST", undefined]);
    }
    for (const intent of ["PREEMPT", "KILL", "CANCEL"] as const)
      expect(runOutcome({ ...failing(0), stopping: true, intent }, exit(143)).retry).toBeUndefined();
  });

  it("lets a stop asked for decide even when the process could not be launched", () => {
    expect(runOutcome({ ...failing(0), stopping: true, intent: "KILL" }, { cause: "launch-failed", exitCode: null }).state).toBe(
      "KILLED",
    );
  });
});
