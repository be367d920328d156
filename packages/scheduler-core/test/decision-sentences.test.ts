import { describe, expect, it } from "vitest";
import { defaultPolicy, runCycle, type CycleResult } from "../src/index";
import { planNodeStates } from "../src/plan-drains";
import { makeCluster, makeJob } from "@tranche/testkit";
import { blocked, consolidation } from "./support/scenes";

// Every sentence the core writes for a decision (starts, preemptions, moves, kills, losses,
// reservations, node states), rendered from small clusters with realistic numbers, against a golden
// file a person has read (test/golden/decision-sentences.txt). Pending reasons have their own file
// (reason-sentences.test.ts). A wording change shows up as a diff: read it, then regenerate with -u.
const HOUR = 3600;
const NOW = 10 * HOUR;

/** Every op's sentence, in plan order, with what it is: "START FREE_GPUS job p". */
function sentences(r: CycleResult): string[] {
  return r.plan.map((o) => {
    switch (o.op) {
      case "START":
        return `START ${o.reason.code} job ${o.jobId}\n  ${o.reason.sentence}`;
      case "PREEMPT":
        return `PREEMPT ${o.reasonCode} job ${o.jobId}\n  ${o.sentence}`;
      case "NODE_STATE":
        return `NODE_STATE ${o.reason} node ${o.nodeId}\n  ${o.sentence}`;
      default:
        return `${o.op} job ${o.jobId}\n  ${o.sentence}`;
    }
  });
}

const cases: { what: string; result: () => CycleResult }[] = [
  {
    what: "a protected job starts on free GPUs",
    result: () =>
      runCycle(
        makeCluster().nodes(1).budget("lab/vision", 1).job(makeJob("p").budget("lab/vision").gpus(4).minRuntime("2h")).snapshot(),
        defaultPolicy,
        NOW,
      ),
  },
  {
    what: "unallocated work starts on free GPUs",
    result: () =>
      runCycle(
        makeCluster().nodes(1).budget("a", 1).job(makeJob("u").budget("a").unallocated().gpus(2)).snapshot(),
        defaultPolicy,
        NOW,
      ),
  },
  {
    what: "an allocated job preempts unallocated work and waits for it to exit",
    result: () =>
      runCycle(
        makeCluster()
          .nodes(1)
          .budget("a", 1)
          .job(makeJob("u-big").budget("a").unallocated().gpus(8).on("n01").startedAt(0), makeJob("p").budget("a").gpus(8))
          .snapshot(),
        defaultPolicy,
        NOW,
      ),
  },
  {
    what: "a job whose reservation is due preempts interruptible work of a budget ranked behind",
    result: () =>
      runCycle(
        makeCluster()
          .nodes(1)
          .budget("a", 0.5)
          .budget("b", 0.5)
          .usage("b", 200 * HOUR)
          .job(makeJob("b-int").budget("b").gpus(8).minRuntime("1h").on("n01").startedAt(0), makeJob("p").budget("a").gpus(8))
          .snapshot(),
        defaultPolicy,
        NOW,
      ),
  },
  {
    what: "a budget below its owed share preempts interruptible work of a budget above its own",
    result: () =>
      runCycle(
        makeCluster()
          .nodes(2)
          .budget("a", 0.5)
          .budget("b", 0.5)
          .usage("b", 200 * HOUR)
          .job(
            makeJob("b-1").budget("b").gpus(8).minRuntime("1h").on("n01").startedAt(0),
            makeJob("b-2").budget("b").gpus(8).minRuntime("1h").on("n02").startedAt(0),
            makeJob("p").budget("a").gpus(8),
          )
          .snapshot(),
        defaultPolicy,
        NOW,
      ),
  },
  {
    what: "a debug-lane job preempts interruptible work",
    result: () =>
      runCycle(
        makeCluster()
          .nodes(1)
          .budget("a", 0.5)
          .budget("b", 0.5)
          .usage("b", 200 * HOUR)
          .job(
            // A one-GPU run two hours old (2.5 GPU-hours of R6 cost) beside protected work.
            makeJob("b-int")
              .budget("b")
              .gpus(1)
              .minRuntime("1h")
              .on("n01", [0])
              .startedAt(NOW - 2 * HOUR),
            makeJob("b-kept")
              .budget("b")
              .gpus(7)
              .minRuntime("8h")
              .on("n01", [1, 2, 3, 4, 5, 6, 7])
              .startedAt(NOW - 60),
            makeJob("dbg").budget("a").gpus(1).debug(),
          )
          .snapshot(),
        defaultPolicy,
        NOW,
      ),
  },
  {
    what: "the first blocked job reserves a node, a short job backfills it",
    result: () =>
      runCycle(
        blocked(NOW).job(makeJob("short").budget("b").gpus(2).maxRuntime("30m").minRuntime("30m").submittedAt(5)).snapshot(),
        defaultPolicy,
        NOW,
      ),
  },
  {
    what: "a job reaches its maximum runtime",
    result: () =>
      runCycle(
        makeCluster()
          .nodes(1)
          .budget("a", 1)
          .job(
            makeJob("over")
              .budget("a")
              .gpus(2)
              .maxRuntime("6h")
              .on("n01", [0, 1])
              .startedAt(NOW - 6 * HOUR),
          )
          .snapshot(),
        defaultPolicy,
        NOW,
      ),
  },
  {
    what: "a contract in seconds is said exactly: a job protected for 90 s starts, one stopped at 1 h 30 min 30 s has 90 s of grace",
    result: () =>
      runCycle(
        makeCluster()
          .nodes(1)
          .budget("a", 1)
          .job(
            makeJob("odd").budget("a").gpus(2).minRuntime(90),
            makeJob("over")
              .budget("a")
              .gpus(2)
              .maxRuntime(5430)
              .grace(90)
              .on("n01", [0, 1])
              .startedAt(NOW - 5430),
          )
          .snapshot(),
        defaultPolicy,
        NOW,
      ),
  },
  {
    what: "jobs on a node that is down are lost",
    result: () =>
      runCycle(
        makeCluster()
          .node("n01", { state: "DOWN" })
          .node("n02")
          .budget("a", 1)
          .job(
            makeJob("charged").budget("a").gpus(4).minRuntime("1h").on("n01", [0, 1, 2, 3]).startedAt(0),
            makeJob("once").budget("a").unallocated().resumable(false).gpus(1).on("n01", [4]).startedAt(0),
          )
          .snapshot(),
        defaultPolicy,
        NOW,
      ),
  },
  {
    what: "a node reports itself unhealthy; an empty draining node goes to repair",
    result: () =>
      runCycle(
        makeCluster()
          .node("n01", { health: "UNHEALTHY" })
          .node("n02", { state: "DRAINING" })
          .node("n03")
          .budget("a", 1)
          .job(
            makeJob("run")
              .budget("a")
              .gpus(4)
              .minRuntime("8h")
              .on("n01")
              .startedAt(NOW - 60),
          )
          .snapshot(),
        defaultPolicy,
        NOW,
      ),
  },
  {
    what: "unallocated work moves to free GPUs elsewhere to make room for an allocated job",
    result: () => consolidation().cycle(),
  },
];

/** Node timeouts are planned before the cycle (plan-drains.ts): both wordings. */
function heartbeatSentences(): string[] {
  const node = (lastHeartbeatAt: number | null) =>
    ({
      id: "b200-3",
      name: "b200-3",
      gpuCount: 8,
      state: "READY",
      health: "HEALTHY",
      lastHeartbeatAt,
      stateChangedAt: NOW - 95,
    }) as const;
  return [node(NOW - 95), node(null)].flatMap((n) =>
    planNodeStates([n], defaultPolicy, NOW).ops.map((o) => `NODE_STATE ${o.reason} node ${o.nodeId}\n  ${o.sentence}`),
  );
}

function render(): string {
  const lines = [
    "# Decision sentences as the scheduler core writes them, one case per block: each op's kind, code and",
    "# job or node, then its sentence. Each must be true, plain and grammatical for the numbers shown.",
    "# Nodes of 8 GPUs; default policy. Regenerate after reading the diff:",
    "#   npx vitest run packages/scheduler-core/test/decision-sentences.test.ts -u",
    "",
  ];
  for (const c of cases) lines.push(`## ${c.what}`, ...sentences(c.result()), "");
  lines.push("## a node stops sending heartbeats; a node never heard from", ...heartbeatSentences(), "");
  return lines.join("\n");
}

describe("decision sentences (golden)", () => {
  it("covers every kind of op and every start and preemption code the core writes", () => {
    const ops = new Set<string>();
    for (const c of cases)
      for (const o of c.result().plan)
        ops.add(o.op === "START" ? `START ${o.reason.code}` : o.op === "PREEMPT" ? `PREEMPT ${o.reasonCode}` : o.op);
    expect([...ops].sort()).toEqual(
      [
        "START FREE_GPUS",
        "START BACKFILL",
        "START PREEMPTED_UNALLOCATED",
        "START PREEMPTED_INTERRUPTIBLE",
        "START DEBUG_LANE",
        "START CONSOLIDATION",
        "PREEMPT UNALLOCATED_FOR_ALLOCATED",
        "PREEMPT FAIR_SHARE",
        "PREEMPT DEBUG_LANE",
        "PREEMPT CONSOLIDATION",
        "RESERVE",
        "KILL",
        "LOST",
        "NODE_STATE",
      ].sort(),
    );
  });

  it("renders every sentence exactly as the reviewed golden file says", async () => {
    await expect(render()).toMatchFileSnapshot("./golden/decision-sentences.txt");
  });

  it("carries no raw timestamps, field names, bare unit letters or doubled prepositions", () => {
    const text = render()
      .split("\n")
      .filter((l) => l.startsWith("  "))
      .join("\n");
    expect(text).not.toMatch(/t=\d/);
    expect(text).not.toMatch(/\b(maxRuntime|minRuntime|gracePeriod)\b/);
    expect(text).not.toMatch(/\d+[smhd]\b/);
    expect(text).not.toMatch(/\b(from|by|before) in\b|from now/);
    expect(text).not.toMatch(/\b1 GPUs\b/);
  });

  it("says a budget's ratio by what it means and a stop without signal names", () => {
    const text = render();
    expect(text).not.toMatch(/projected ratio|\bSIG(TERM|KILL)\b/);
    expect(text).toMatch(/which has used 2\.2 times its share over the last 7 days/);
    expect(text).toMatch(/Asked to stop now, stopped by force after 2 min if still running/);
  });

  it("says a started job's place in line as a person would, never as a position in order", () => {
    const text = render();
    expect(text).not.toMatch(/position \d+ in order/i);
    expect(text).toMatch(/Started on free GPUs\. It was first in line on this cluster, from budget root\/a, which/);
    expect(text).toMatch(/It was 2nd in line on this cluster, from budget root\/b, which/);
  });
});
