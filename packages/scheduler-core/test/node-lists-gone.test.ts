import { describe, expect, it } from "vitest";
import { defaultPolicy, forecastStarts, runCycle, type ClusterSnapshot } from "../src/index";
import { makeCluster, makeJob, type JobBuilder } from "@tranche/testkit";

const NOW = 100_000;

/** n01 and n02 in service, n03 down; a node the job names that is none of them was retired or removed. */
function cluster(p: JobBuilder): ClusterSnapshot {
  return makeCluster().nodes(2).node("n03", { state: "DOWN" }).budget("a", 1).job(p.budget("a").pending()).snapshot();
}

describe("a job whose node lists leave it no node in service", () => {
  it("says it will never start, why, and the command that changes its lists", () => {
    const r = runCycle(cluster(makeJob("41").gpus(4).onlyNodes("h100-3")), defaultPolicy, NOW);
    const reason = r.pending.get("41")!;
    expect(reason.code).toBe("NODE_CONSTRAINT");
    expect(reason.details.problem).toBe("the only node it may run on, 'h100-3', is no longer in service (retired or removed)");
    expect(reason.sentence).toMatch(
      /^Will never start as its node lists stand: the only node it may run on, 'h100-3', is no longer/,
    );
    expect(reason.sentence).toContain("tranche update 41 --nodelist");
  });

  it("names every node it named when all are gone", () => {
    const r = runCycle(cluster(makeJob("41").gpus(4).onlyNodes("h100-3", "h100-4")), defaultPolicy, NOW);
    expect(r.pending.get("41")!.details.problem).toBe(
      "none of the nodes it may run on (h100-3, h100-4) is in service any more (retired or removed)",
    );
  });

  it("says so when the nodes left cannot hold its shape", () => {
    const r = runCycle(cluster(makeJob("41").gpus(16).onlyNodes("n01", "h100-3")), defaultPolicy, NOW);
    expect(r.pending.get("41")!.details.problem).toBe(
      "16 GPUs need 2 whole nodes of 8 GPUs, but the job may use only 1 (n01); node 'h100-3' is no longer in service (retired or removed)",
    );
  });

  it("a node it may use that is down may come back: the usual sentence, no problem", () => {
    const r = runCycle(cluster(makeJob("41").gpus(4).onlyNodes("n03")), defaultPolicy, NOW);
    const reason = r.pending.get("41")!;
    expect(reason.code).toBe("NODE_CONSTRAINT");
    expect(reason.details.problem).toBeUndefined();
    expect(reason.sentence).toMatch(/^It may run only on the nodes it was submitted for/);
  });

  it("the start forecast says why it has no start", () => {
    const { starts } = forecastStarts(cluster(makeJob("41").gpus(4).onlyNodes("h100-3")), defaultPolicy, NOW);
    expect(starts[0]).toMatchObject({
      at: null,
      unknown: "NODE_LIST",
      why: "its node lists leave it no node in service to run on",
    });
  });
});
