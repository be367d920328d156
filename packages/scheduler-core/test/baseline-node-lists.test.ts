import { makeCluster, makeJob } from "@tranche/testkit";
import { describe, expect, it } from "vitest";
import { defaultPolicy } from "../src/index";
import { FIFO, PRIORITY } from "../src/baselines/index";
import { runCycleWith } from "../src/run-cycle";
import type { ClusterSnapshot } from "../src/types";
import { WorkingMemory } from "../src/working-memory";

const NOW = 10 * 3600;

/** A baseline's cycle, its reasons pushed at once (`defer` false) or noted and written when read. */
function cycle(snap: ClusterSnapshot, rules: typeof FIFO, defer: boolean) {
  const memory = new WorkingMemory();
  memory.deferReasons = defer;
  return runCycleWith(memory, JSON.parse(JSON.stringify(snap)) as ClusterSnapshot, defaultPolicy, NOW, rules);
}

const held = (id: string, node: string) =>
  makeJob(id)
    .budget("a")
    .gpus(8)
    .minRuntime("4h")
    .maxRuntime("4h")
    .on(node)
    .startedAt(NOW - 60)
    .running();

describe("the baselines say NODE_CONSTRAINT when a job's node lists keep it waiting", () => {
  for (const rules of [PRIORITY, FIFO])
    for (const defer of [false, true]) {
      it(`${rules.name}${defer ? ", reasons written when read" : ""}: free GPUs only on a node it may not use`, () => {
        const snap = makeCluster()
          .nodes(2)
          .budget("a", 1)
          .job(held("busy", "n01"), makeJob("p").budget("a").gpus(4).onlyNodes("n01"))
          .snapshot();
        const r = cycle(snap, rules, defer);
        expect(r.plan.filter((o) => o.op === "START")).toEqual([]);
        expect(r.pending.get("p")!.code).toBe("NODE_CONSTRAINT");
      });

      it(`${rules.name}${defer ? ", reasons written when read" : ""}: no node it may use takes work, behind a reservation`, () => {
        // q waits first and reserves; p and r wait behind it (a quiet run when the reasons are deferred).
        const snap = makeCluster()
          .nodes(2)
          .node("n03", { state: "CORDONED" })
          .budget("a", 1)
          .job(
            held("b1", "n01"),
            held("b2", "n02"),
            makeJob("q").budget("a").gpus(8).submittedAt(1),
            makeJob("p").budget("a").gpus(8).onlyNodes("n03").submittedAt(2),
            makeJob("r").budget("a").gpus(8).excludeNodes("n03").submittedAt(3),
          )
          .snapshot();
        const r = cycle(snap, rules, defer);
        expect(r.pending.get("q")!.code).toBe("CAPACITY");
        expect(r.pending.get("p")!.code).toBe("NODE_CONSTRAINT");
        expect(r.pending.get("r")!.code).toBe("CAPACITY");
      });
    }

  it("deferred and eager reasons agree for jobs with lists in a run", () => {
    const snap = makeCluster()
      .nodes(3)
      .node("n04", { state: "CORDONED" })
      .budget("a", 1)
      .job(
        held("b1", "n01"),
        held("b2", "n02"),
        held("b3", "n03"),
        ...Array.from({ length: 12 }, (_, k) => {
          const j = makeJob(`p${k}`)
            .budget("a")
            .gpus(8)
            .submittedAt(k + 1);
          return k % 3 === 1 ? j.onlyNodes("n04") : k % 3 === 2 ? j.excludeNodes("n01") : j;
        }),
      )
      .snapshot();
    for (const rules of [PRIORITY, FIFO]) {
      const eager = cycle(snap, rules, false);
      const lazy = cycle(snap, rules, true);
      expect(JSON.stringify([...lazy.pending.entries()])).toBe(JSON.stringify([...eager.pending.entries()]));
      expect(lazy.pending.get("p4")!.code).toBe("NODE_CONSTRAINT");
    }
  });
});
