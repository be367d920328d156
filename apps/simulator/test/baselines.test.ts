import { describe, expect, it } from "vitest";
import { createMemorySink, type SimEvent } from "../src/events-log.js";
import { runScenario } from "../src/run.js";
import { validateScenario } from "../src/scenario.js";

function run(policy: "priority" | "fifo", jobs: Record<string, unknown>[], nodes = 1): SimEvent[] {
  const s = validateScenario(
    {
      clusters: [{ name: "c", nodes, gpusPerNode: 8 }],
      budgets: {
        name: "lab",
        children: [
          { name: "a", allocation: { c: 0.5 } },
          { name: "b", allocation: { c: 0.5 } },
        ],
      },
      jobs,
    },
    { file: "t.yaml", baseDir: "." },
  );
  const sink = createMemorySink();
  runScenario(s, { policy, sink });
  return sink.events;
}
const line = (e: SimEvent): string =>
  `${e.t} ${e.type} ${e.job ?? e.node}${e.cause ? ` ${e.cause}` : ""}${e.charged !== undefined ? ` charged=${String(e.charged)}` : ""}`;

describe("the priority baseline", () => {
  it("runs jobs beyond the team's cap as preemptible and preempts them for a within-cap job", () => {
    const evs = run("priority", [
      // Team a's cap is 4 GPUs: its first job is non-preemptible, its second runs beyond the cap.
      { id: "a1", submit: 0, budget: "a", gpus: 4, duration: 5000 },
      { id: "a2", submit: 0, budget: "a", gpus: 4, duration: 5000 },
      { id: "b1", submit: 100, budget: "b", gpus: 4, duration: 1000 },
    ]);
    expect(evs.filter((e) => e.type !== "submit").map(line)).toEqual([
      "0 start a1 charged=true",
      "0 start a2 charged=false",
      "100 preempt a2",
      "110 stop a2 preempt",
      "110 requeue a2",
      "110 start b1 charged=true",
      "1110 stop b1 finish",
      "1110 start a2 charged=false",
      "5000 stop a1 finish",
      "6410 stop a2 finish",
    ]);
  });

  it("never drains a non-preemptible job: the node waits until it ends", () => {
    const s = validateScenario(
      {
        clusters: [{ name: "c", nodes: 2, gpusPerNode: 8 }],
        budgets: { name: "lab", children: [{ name: "a", allocation: { c: 1 } }] },
        nodeEvents: [{ t: 10, node: "c-0", health: "unhealthy" }],
        jobs: [{ id: "a1", submit: 0, budget: "a", gpus: 8, duration: 20000, min_runtime: 3600 }],
      },
      { file: "t.yaml", baseDir: "." },
    );
    const sink = createMemorySink();
    runScenario(s, { policy: "priority", sink });
    expect(sink.events.filter((e) => e.type === "node" || e.type === "stop").map(line)).toEqual([
      "10 node c-0",
      "20000 stop a1 finish",
      "20000 node c-0",
    ]);
    expect(sink.events.filter((e) => e.type === "node").map((e) => e.state)).toEqual(["DRAINING", "REPAIR"]);
  });
});

describe("the fifo baseline", () => {
  it("starts jobs in submit order and lets small jobs backfill around the first blocked one", () => {
    const evs = run(
      "fifo",
      [
        { id: "x", submit: 0, budget: "a", gpus: 6, duration: 1000 },
        { id: "big", submit: 1, budget: "b", gpus: 8, duration: 1000 },
        { id: "small", submit: 2, budget: "a", gpus: 2, duration: 500 },
      ],
      2,
    );
    expect(evs.filter((e) => e.type === "start").map((e) => `${e.t} ${e.job}`)).toEqual(["0 x", "1 big", "2 small"]);
  });

  it("keeps the nodes reserved for the first blocked job closed to later jobs", () => {
    const evs = run("fifo", [
      { id: "x", submit: 0, budget: "a", gpus: 6, duration: 1000 },
      { id: "big", submit: 1, budget: "b", gpus: 8, duration: 1000 },
      { id: "small", submit: 2, budget: "a", gpus: 2, duration: 500 },
    ]);
    // One node: big waits for x; small may not take the 2 free GPUs reserved for big.
    expect(evs.filter((e) => e.type === "start").map((e) => `${e.t} ${e.job}`)).toEqual(["0 x", "1000 big", "2000 small"]);
  });
});

describe("maxRuntime in the simulator", () => {
  it("is the core's KILL: SIGTERM at the deadline, the job ends after its grace unless its work finishes first", () => {
    for (const policy of ["priority", "fifo"] as const) {
      const evs = run(policy, [
        // Unallocated (grace 10 s): "over" needs 2 h of work and may run 1 h; "close" finishes 5 s after its deadline.
        { id: "over", submit: 0, budget: "a", gpus: 4, duration: 7200, max_runtime: 3600, min_runtime: 0 },
        { id: "close", submit: 0, budget: "b", gpus: 4, duration: 3605, max_runtime: 3600, min_runtime: 0 },
      ]);
      expect(evs.filter((e) => e.type === "stop").map(line)).toEqual(["3605 stop close finish", "3610 stop over kill"]);
    }
  });
});
