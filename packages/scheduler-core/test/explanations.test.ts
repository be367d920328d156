import { describe, expect, it } from "vitest";
import { PENDING_REASON_CODES, defaultPolicy, runCycle } from "../src/index";
import { makeCluster, makeJob } from "@tranche/testkit";
import { explainPending } from "../src/explain-pending";

const HOUR = 3600;
const NOW = 100 * HOUR;

describe("R10 explanations", () => {
  it("explains ORDER with the number of jobs ahead that took the free GPUs", () => {
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("a", 1)
        .job(makeJob("first").budget("a").gpus(8).submittedAt(0), makeJob("second").budget("a").gpus(8).submittedAt(1))
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(r.pending.get("second")).toMatchObject({
      code: "ORDER",
      details: { position: 2, jobsAhead: 1, gpus: 8, largestFreeGpus: 0 },
    });
    expect(r.pending.get("second")!.sentence).toBe(
      "Waiting its turn: 1 job ahead of it in line took the GPUs that were free at the start of this cycle (2nd in line, budget root/a, which has used 4% of its share over the last 7 days, counting the next hour of what it runs now).",
    );
  });

  it("names the budget by its path, not its id, for jobs outside the order too (held)", () => {
    const r = runCycle(makeCluster().nodes(1).budget("a", 1).job(makeJob("h").budget("a").held()).snapshot(), defaultPolicy, NOW);
    expect(r.pending.get("h")!.code).toBe("HELD");
    expect(r.pending.get("h")!.sentence).toContain("budget root/a,");
  });

  it("says who held a job, when, and who may release it, from the hold the snapshot carries", () => {
    const snap = makeCluster().nodes(1).budget("a", 1).job(makeJob("42").budget("a").held()).snapshot();
    snap.pending[0]!.hold = { byName: "Omar Khan", byRole: "operator", at: NOW - 25 * 60 };
    const r = runCycle(snap, defaultPolicy, NOW).pending.get("42")!;
    expect(r.details).toMatchObject({ heldByName: "Omar Khan", heldByRole: "operator", heldAt: NOW - 25 * 60 });
    expect(r.sentence).toMatch(
      /^Held by Omar Khan \(operator\) 25 min ago, so it will not start until released; only an operator or an admin may release it: tranche release 42 \(budget root\/a,/,
    );
  });

  it("explains CONTRACTS with the earliest start from protection ends", () => {
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .usage("b", 10 * HOUR)
        .job(
          makeJob("run")
            .budget("b")
            .gpus(8)
            .minRuntime("3h")
            .on("n01")
            .startedAt(NOW - HOUR),
          makeJob("p").budget("a").gpus(8),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(r.pending.get("p")!.code).toBe("CONTRACTS");
    expect(r.pending.get("p")!.details.earliestStart).toBe(NOW + 2 * HOUR);
    expect(r.pending.get("p")!.sentence).toContain(
      "it cannot start for at least 2 h unless the jobs holding the GPUs end sooner on their own;",
    );
    expect(r.pending.get("p")!.sentence).not.toMatch(/t=\d/);
  });

  it("explains CLUSTER_DRAINING when only non-READY nodes could hold the job", () => {
    const r = runCycle(
      makeCluster()
        .node("n01")
        .node("n02", { state: "DRAINING" })
        .budget("a", 1)
        .job(makeJob("big").budget("a").gpus(16))
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(r.pending.get("big")!.code).toBe("CLUSTER_DRAINING");
  });

  it("explains INVALID_CONTRACT for a job that can never fit and one with an unknown budget", () => {
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("a", 1)
        .job(makeJob("huge").budget("a").gpus(64), { ...makeJob("lost").pending(), budgetId: "nope" })
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(r.pending.get("huge")).toMatchObject({ code: "INVALID_CONTRACT", details: { position: null } });
    expect(r.pending.get("huge")!.sentence).toContain("more than the cluster has (8)");
    expect(r.pending.get("lost")!.sentence).toContain("budget nope is not in this cluster's budget tree");
    expect(r.order).toEqual([]);
  });

  it("explains NO_ENTITLEMENT for a budget without allocation", () => {
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("a", 1)
        .budget("guest", 0)
        .job(
          makeJob("run")
            .budget("a")
            .gpus(8)
            .minRuntime("8h")
            .on("n01")
            .startedAt(NOW - 60),
          makeJob("g").budget("guest"),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(r.pending.get("g")!.code).toBe("NO_ENTITLEMENT");
    expect(r.pending.get("g")!.details.ratio).toBe(Infinity);
  });

  it("explains CAPACITY for unallocated work on a full cluster", () => {
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("a", 1)
        .job(
          makeJob("run")
            .budget("a")
            .gpus(8)
            .minRuntime("8h")
            .on("n01")
            .startedAt(NOW - 60),
          makeJob("u").budget("a").unallocated(),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(r.pending.get("u")!.code).toBe("CAPACITY");
    expect(r.pending.get("u")!.details.earliestStart).toBe(null);
  });

  it("gives every pending job exactly one known reason code and every start a sentence", () => {
    const r = runCycle(
      makeCluster()
        .nodes(2)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .job(
          ...Array.from({ length: 12 }, (_, i) =>
            makeJob(`j${i}`)
              .budget(i % 2 ? "a" : "b")
              .gpus([1, 4, 8, 16][i % 4]!)
              .submittedAt(i),
          ),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    const started = new Set(r.plan.flatMap((o) => (o.op === "START" ? [o.jobId] : [])));
    for (let i = 0; i < 12; i++) {
      const id = `j${i}`;
      if (started.has(id)) expect(r.pending.get(id)).toBeUndefined();
      else expect(PENDING_REASON_CODES).toContain(r.pending.get(id)!.code);
    }
    for (const o of r.plan)
      if (o.op === "START")
        expect(o.reason.sentence).toMatch(
          / It was (first|\d+(st|nd|rd|th)) in line on this cluster, from budget root\/[ab], which has used (\d+% of its share|\d+\.\d times its share) over the last 7 days/,
        );
  });

  it("words each reason exactly as explainPending would, when sentences are built per group of jobs", () => {
    const c = makeCluster()
      .nodes(2)
      .budget("a", 0.5)
      .budget("b", 0.5)
      .usage("b", 40 * HOUR);
    c.job(
      makeJob("run")
        .budget("b")
        .gpus(8)
        .minRuntime("3h")
        .on("n01")
        .startedAt(NOW - HOUR),
    );
    c.job(
      makeJob("run2")
        .budget("a")
        .gpus(8)
        .minRuntime("3h")
        .on("n02")
        .startedAt(NOW - HOUR),
    );
    for (let i = 0; i < 30; i++)
      c.job(
        makeJob(`p${i}`)
          .budget(i % 3 ? "a" : "b")
          .gpus([1, 2, 8, 16][i % 4]!)
          .minRuntime(i % 5 ? "1h" : 0)
          .submittedAt(i),
      );
    const r = runCycle(c.snapshot(), defaultPolicy, NOW);
    expect([...r.pending.keys()].length).toBe(30);
    for (const [id, reason] of [...r.pending]) {
      const budget = Number(id.slice(1)) % 3 ? "root/a" : "root/b";
      const again = explainPending(
        { code: reason.code, budgetPath: budget, userId: "alice", now: NOW, details: reason.details },
        8,
      );
      expect(reason.sentence).toBe(again.sentence);
    }
  });
});
