import { createHarness, makeCluster, makeJob, type Harness } from "@tranche/testkit";

// Scenes more than one test file decides on (a rule's own test and the golden sentences), built once
// here so the sentences describe the very scene the rule's asserts check.
const MIN = 60;
const HOUR = 3600;

/**
 * Two nodes at `now`; n01 half busy with a job of budget b protected for another hour; n02 busy until
 * its protection ends in 2h; "big" (budget a, 8 GPUs) pending and blocked.
 */
export const blocked = (now: number) =>
  makeCluster()
    .nodes(2)
    .budget("a", 0.5)
    .budget("b", 0.5)
    .usage("b", 50 * HOUR)
    .job(
      makeJob("b-1h")
        .budget("b")
        .gpus(4)
        .minRuntime("2h")
        .on("n01", [0, 1, 2, 3])
        .startedAt(now - HOUR),
      makeJob("b-2h")
        .budget("b")
        .gpus(8)
        .minRuntime("4h")
        .on("n02")
        .startedAt(now - 2 * HOUR),
      makeJob("big").budget("a").gpus(8).submittedAt(0),
    );

/**
 * n01: an unallocated job ("free") on half the node, the other half free; n02 and n03: a protected job
 * and 4 free GPUs each. 40 minutes in, "big" (allocated, 8 GPUs) is submitted: the next cycle moves
 * "free" to free GPUs elsewhere to make room (R12 consolidation).
 */
export function consolidation(): Harness {
  const h = createHarness(
    makeCluster()
      .nodes(3)
      .budget("a", 1)
      .job(
        makeJob("free").budget("a").unallocated().gpus(4).startedAt(0).on("n01", [0, 1, 2, 3]).running(),
        makeJob("kept").budget("a").gpus(4).minRuntime("8h").startedAt(0).on("n02", [0, 1, 2, 3]).running(),
        makeJob("kept3").budget("a").gpus(4).minRuntime("8h").startedAt(0).on("n03", [0, 1, 2, 3]).running(),
      )
      .snapshot(),
    { durations: { free: 10 * HOUR, kept: 45 * MIN, kept3: 10 * HOUR } },
  );
  h.advance(40 * MIN);
  h.submit(makeJob("big").budget("a").gpus(8).submittedAt(h.now).pending(), HOUR);
  return h;
}
