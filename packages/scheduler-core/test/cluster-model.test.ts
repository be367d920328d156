import { describe, expect, it } from "vitest";
import { makeCluster, makeJob } from "@tranche/testkit";
import {
  applyPlan,
  createClusterModel,
  defaultPolicy,
  graceEnded,
  jobStateOf,
  nodeReported,
  operatorMovedNode,
  runCycle,
  runExited,
  snapshotOf,
  submitJob,
  type ClusterModel,
  type PlanOp,
} from "../src/index";

const HOUR = 3600;

/** A model with one node full of unallocated work and one allocated job that preempts it. */
function preemptionSetup(): { model: ClusterModel; plan: PlanOp[] } {
  const s = makeCluster().nodes(1).budget("a", 1).snapshot();
  let m = createClusterModel(s.cluster, s.nodes, s.tree);
  m = submitJob(m, makeJob("free").budget("a").unallocated().resumable().gpus(8).pending());
  let r = runCycle(snapshotOf(m), defaultPolicy, 0);
  m = applyPlan(m, r.plan, 0, r.reservations);
  expect(jobStateOf(m, "free")).toBe("RUNNING");
  m = submitJob(m, makeJob("paid").budget("a").gpus(8).minRuntime("1h").pending());
  r = runCycle(snapshotOf(m), defaultPolicy, 10);
  expect(r.plan.map((o) => o.op)).toEqual(["PREEMPT", "START"]);
  return { model: m, plan: r.plan };
}

describe("the core's cluster model", () => {
  it("applies a preemption: the victim winds down during its grace, then is requeued; the preemptor holds its GPUs", () => {
    const { model, plan } = preemptionSetup();
    let m = applyPlan(model, plan, 10);
    expect(jobStateOf(m, "free")).toBe("STOPPING");
    expect(jobStateOf(m, "paid")).toBe("RUNNING");
    m = graceEnded(m, 15);
    expect(jobStateOf(m, "free")).toBe("STOPPING");
    m = graceEnded(m, 20);
    expect(jobStateOf(m, "free")).toBe("PENDING");
    expect(m.jobs.find((j) => j.job.id === "free")!.job.requeuedAt).toBe(20);
  });

  it("drops a START whose node left READY after the cycle decided, and the PREEMPTs made for it", () => {
    const { model, plan } = preemptionSetup();
    const m = applyPlan(operatorMovedNode(model, "n01", "CORDONED"), plan, 10);
    expect(jobStateOf(m, "paid")).toBe("PENDING");
    expect(jobStateOf(m, "free")).toBe("RUNNING");
  });

  it("uses the requeue decision the core recorded, not the job's fields", () => {
    const { model, plan } = preemptionSetup();
    const noRequeue = plan.map((o) => (o.op === "PREEMPT" ? { ...o, requeue: false } : o));
    const m = graceEnded(applyPlan(model, noRequeue, 10), HOUR);
    expect(jobStateOf(m, "free")).toBe("PREEMPTED");
  });

  it("ends runs on their exit code, and a killed run as KILLED", () => {
    const { model, plan } = preemptionSetup();
    let m = applyPlan(model, plan, 10);
    m = runExited(m, "paid", 0, 100);
    expect(jobStateOf(m, "paid")).toBe("COMPLETED");
    const kill: PlanOp = { op: "KILL", jobId: "free", budgetId: "a", gpus: 8, gracePeriod: 10, graceUntil: 30, sentence: "" };
    m = applyPlan(submitJob(model, makeJob("x").budget("a").pending()), [kill], 20);
    expect(jobStateOf(m, "free")).toBe("STOPPING");
    expect(jobStateOf(graceEnded(m, 30), "free")).toBe("KILLED");
  });

  it("node reports: a DOWN node back healthy is READY, unhealthy REPAIR; an operator's repair waits for the operator", () => {
    const s = makeCluster()
      .node("n01", { state: "DOWN", lastHeartbeatAt: 5 })
      .node("n02", { state: "DOWN", lastHeartbeatAt: 5 })
      .budget("a", 1)
      .snapshot();
    let m = createClusterModel(s.cluster, s.nodes, s.tree);
    m = nodeReported(m, "n01", true, 10);
    m = nodeReported(m, "n02", false, 10);
    expect(m.nodes.map((n) => n.state)).toEqual(["READY", "REPAIR"]);
    m = nodeReported(m, "n02", true, 20);
    expect(m.nodes[1]!.state).toBe("READY");
    m = operatorMovedNode(m, "n01", "DRAINING");
    m = applyPlan(
      m,
      [{ op: "NODE_STATE", nodeId: "n01", from: "DRAINING", to: "REPAIR", reason: "DRAINED", sentence: "", runRepairHook: true }],
      30,
    );
    m = nodeReported(m, "n01", true, 40);
    expect(m.nodes[0]!.state).toBe("REPAIR");
  });
});
