import { EntryColumns } from "../src/entry-columns";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { FairTree } from "../src/fair-tree";
import { PendingQueues, pendingEntry, type PendingEntry } from "../src/order-pending";
import type { BudgetTreeNode, JobLane, PendingJob } from "../src/types";

/** The R2 walk written out plainly: from the root, the sibling that compares first among those with jobs left. */
function referencePick(tree: FairTree, left: Map<number, PendingEntry[]>): PendingEntry | null {
  const hasJobs = (n: number): boolean => (left.get(n)?.length ?? 0) > 0 || tree.children[n]!.some((c) => hasJobs(c));
  const owed = (n: number): boolean =>
    tree.isLeaf(n) ? (left.get(n)?.length ?? 0) > 0 && tree.underShare(n) : tree.children[n]!.some((c) => owed(c));
  let node = tree.root;
  if (!hasJobs(node)) return null;
  while ((left.get(node)?.length ?? 0) === 0) {
    const kids = tree.children[node]!.filter(hasJobs).sort((a, b) => tree.compareSiblings(a, b, owed(a), owed(b)));
    node = kids[0]!;
  }
  return left.get(node)!.shift()!;
}

/** lab -> d0, d1 -> three leaves each (p0-p2, p3-p5), each leaf a third of its division; `usage` per leaf. */
function labTree(usage: (leaf: number) => number): BudgetTreeNode[] {
  const nodes: BudgetTreeNode[] = [
    { id: "lab", name: "lab", parentId: null, allocationPpm: 1_000_000, usageGpuSeconds: 0, entitlementGpuSeconds: 600 },
    { id: "d0", name: "d0", parentId: "lab", allocationPpm: 500_000, usageGpuSeconds: 0, entitlementGpuSeconds: 300 },
    { id: "d1", name: "d1", parentId: "lab", allocationPpm: 500_000, usageGpuSeconds: 0, entitlementGpuSeconds: 300 },
  ];
  for (let i = 0; i < 6; i++)
    nodes.push({
      id: `p${i}`,
      name: `p${i}`,
      parentId: i < 3 ? "d0" : "d1",
      allocationPpm: 333_333,
      usageGpuSeconds: usage(i),
      entitlementGpuSeconds: 100,
    });
  return nodes;
}

const arbCase = fc.record({
  usage: fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 6, maxLength: 6 }),
  jobs: fc.array(fc.record({ leaf: fc.integer({ min: 0, max: 5 }), priority: fc.integer({ min: 0, max: 2 }) }), {
    maxLength: 40,
  }),
  // After pick k, a start (+gpus) on budget leaf: ratios move, so later picks must walk again.
  starts: fc.array(
    fc.record({
      after: fc.integer({ min: 0, max: 40 }),
      leaf: fc.integer({ min: 0, max: 5 }),
      gpus: fc.integer({ min: 1, max: 8 }),
    }),
    {
      maxLength: 8,
    },
  ),
});

type ArbCase = typeof arbCase extends fc.Arbitrary<infer T> ? T : never;

/**
 * The picks of PendingQueues against the reference walk on `c`: after pick k, `skips` take up to n of
 * the last budget's jobs at once (runAfterTaken, skip: no start between them), then `c.starts` move
 * the ratios. Returns both lists of job ids.
 */
function picksAgainstReference(c: ArbCase, skips: readonly { after: number; n: number }[]): { got: string[]; want: string[] } {
  const nodes = labTree((i) => c.usage[i]!);
  const treeA = new FairTree(nodes, 3600);
  const treeB = new FairTree(nodes, 3600);
  // 60 GPUs: each leaf is owed 10, so the starts below move leaves across their shares.
  treeA.capacity = treeB.capacity = 60;
  const entries = c.jobs.map((j, k) => {
    const job = { id: `j${String(k).padStart(2, "0")}`, priority: j.priority, submittedAt: k } as PendingJob;
    return pendingEntry(job, treeA.indexOf(`p${j.leaf}`)!, "ALLOCATED" as JobLane);
  });
  const queues = new PendingQueues(treeA, entries, null, EntryColumns.of);
  const left = new Map<number, PendingEntry[]>();
  for (const e of [...entries].sort((a, b) => b.priority - a.priority || a.submittedAt - b.submittedAt)) {
    if (!left.has(e.budget)) left.set(e.budget, []);
    left.get(e.budget)!.push(e);
  }
  const got: string[] = [];
  const want: string[] = [];
  for (let k = 0; k <= entries.length; k++) {
    got.push(queues.next("ALLOCATED")?.job.id ?? "none");
    want.push(referencePick(treeB, left)?.job.id ?? "none");
    for (const x of skips.filter((x) => x.after === k)) {
      const run = queues.runAfterTaken("ALLOCATED");
      if (run === null) continue;
      const n = Math.min(x.n, run.queue.length - run.from);
      for (let i = 0; i < n; i++) {
        got.push(run.queue[run.from + i]!.job.id);
        want.push(referencePick(treeB, left)?.job.id ?? "none");
      }
      queues.skip("ALLOCATED", n);
      if (n > 0) expect(run.queue[queues.takenAt]).toBe(run.queue[run.from + n - 1]);
    }
    for (const s of c.starts.filter((x) => x.after === k)) {
      treeA.addHeld(treeA.indexOf(`p${s.leaf}`)!, s.gpus);
      treeB.addHeld(treeB.indexOf(`p${s.leaf}`)!, s.gpus);
    }
  }
  return { got, want };
}

describe("PendingQueues", () => {
  it("takes jobs in the same order as a fresh R2 walk from the root before every pick, as ratios move", () => {
    fc.assert(
      fc.property(arbCase, (c) => {
        const { got, want } = picksAgainstReference(c, []);
        expect(got).toEqual(want);
      }),
      { numRuns: 300 },
    );
  });

  it("after a run taken at once empties a budget under its share, owed work is counted again (R2's first tier)", () => {
    // d0's leaves have no usage, d1's much: by ratio d0 goes first. p1 holds more than its owed share
    // (10 of 60 GPUs), so once p0's jobs are gone d0 has no owed work left and d1's owed p3 goes first.
    const nodes = labTree((i) => (i < 3 ? 0 : 10_000_000));
    const tree = new FairTree(nodes, 3600);
    tree.capacity = 60;
    tree.addHeld(tree.indexOf("p1")!, 12);
    const entry = (id: string, leaf: string, at: number): PendingEntry =>
      pendingEntry({ id, priority: 0, submittedAt: at } as PendingJob, tree.indexOf(leaf)!, "ALLOCATED");
    const queues = (): PendingQueues =>
      new PendingQueues(
        tree,
        [entry("a1", "p0", 1), entry("a2", "p0", 2), entry("b1", "p1", 3), entry("c1", "p3", 4)],
        null,
        EntryColumns.of,
      );
    const rest = (q: PendingQueues): (string | undefined)[] => [1, 2, 3].map(() => q.next("ALLOCATED")?.job.id);
    // a2 taken by the pick cache, then as a run.
    const picked = queues();
    expect([picked.next("ALLOCATED")!.job.id, picked.next("ALLOCATED")!.job.id]).toEqual(["a1", "a2"]);
    expect(rest(picked)).toEqual(["c1", "b1", undefined]);
    const skipped = queues();
    expect(skipped.next("ALLOCATED")!.job.id).toBe("a1");
    const run = skipped.runAfterTaken("ALLOCATED")!;
    expect(run.queue.slice(run.from).map((e) => e.job.id)).toEqual(["a2"]);
    skipped.skip("ALLOCATED", 1);
    expect(rest(skipped)).toEqual(["c1", "b1", undefined]);
  });

  it("takes a run at once (runAfterTaken, skip) as the picks it stands for would, and picks on from there", () => {
    // After pick k, take up to n of the last budget's jobs at once.
    const skips = fc.array(fc.record({ after: fc.integer({ min: 0, max: 40 }), n: fc.integer({ min: 0, max: 10 }) }), {
      maxLength: 8,
    });
    fc.assert(
      fc.property(arbCase, skips, (c, runs) => {
        const { got, want } = picksAgainstReference(c, runs);
        expect(got).toEqual(want);
      }),
      { numRuns: 300 },
    );
  });
});
