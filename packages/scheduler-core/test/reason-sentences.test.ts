import { describe, expect, it } from "vitest";
import { PENDING_REASON_CODES } from "../src/index";
import { PendingExplainer, explainPending, type ReasonInput } from "../src/explain-pending";
import type { PendingReasonCode, PendingReasonDetails } from "../src/types";
import { lineText } from "../src/format";

// Every pending reason's sentence, rendered by the core with realistic numbers, against a golden file
// a person has read (test/golden/pending-reasons.txt). A wording change shows up as a diff of that
// file: read it, then regenerate with `-u` and commit it with the change.
const NOW = 1_796_000_000;
const NODE = 8;

const base: PendingReasonDetails = {
  position: 4,
  jobsAhead: 3,
  ratio: 0.85,
  gpus: 16,
  largestFreeGpus: 3,
  earliestStart: NOW + 90 * 60,
};

const cases: { what: string; code: PendingReasonCode; details: PendingReasonDetails; budget?: string; jobId?: string }[] = [
  { what: "held, by whom not known", code: "HELD", details: { ...base, position: null, jobsAhead: 0 } },
  {
    what: "held by its owner 25 minutes ago",
    code: "HELD",
    jobId: "42",
    details: { ...base, position: null, jobsAhead: 0, heldByName: "Ada Lovelace", heldByRole: "owner", heldAt: NOW - 25 * 60 },
  },
  {
    what: "held by an operator, which its owner may not release",
    code: "HELD",
    jobId: "42",
    details: { ...base, position: null, jobsAhead: 0, heldByName: "Omar Khan", heldByRole: "operator", heldAt: NOW - 3 * 3600 },
  },
  {
    what: "held by a manager of its budget a moment ago",
    code: "HELD",
    jobId: "42",
    details: { ...base, position: null, jobsAhead: 0, heldByName: "Grace Hopper", heldByRole: "manager", heldAt: NOW - 20 },
  },
  {
    what: "asks for more GPUs than the cluster has",
    code: "INVALID_CONTRACT",
    details: { ...base, position: null, problem: "it asks for 512 GPUs and this cluster has 256" },
  },
  {
    what: "waiting for one job to finish successfully",
    code: "DEPENDENCY",
    details: { ...base, position: null, jobsAhead: 0, dependencies: [{ jobId: "81", condition: "ok", state: "WAITING" }] },
  },
  {
    what: "waiting for several jobs, one of them to end at all",
    code: "DEPENDENCY",
    details: {
      ...base,
      position: null,
      jobsAhead: 0,
      dependencies: [
        { jobId: "81", condition: "ok", state: "WAITING" },
        { jobId: "94", condition: "any", state: "WAITING" },
      ],
    },
  },
  {
    what: "a job it needs to succeed failed",
    code: "DEPENDENCY_NEVER_SATISFIED",
    details: { ...base, position: null, jobsAhead: 0, dependencies: [{ jobId: "81", condition: "ok", state: "FAILED" }] },
  },
  {
    what: "two jobs it needs to succeed ended otherwise",
    code: "DEPENDENCY_NEVER_SATISFIED",
    details: {
      ...base,
      position: null,
      jobsAhead: 0,
      dependencies: [
        { jobId: "81", condition: "ok", state: "CANCELLED" },
        { jobId: "82", condition: "ok", state: "LOST" },
      ],
    },
  },
  {
    what: "its array has 5 tasks running, the most it allows",
    code: "ARRAY_LIMIT",
    details: { ...base, gpus: 1, arrayId: "120", arrayRunning: 5, arrayMaxRunning: 5 },
  },
  {
    what: "its user holds the GPUs the budget allows per person",
    code: "USER_LIMIT",
    details: { ...base, gpus: 8, userGpus: 16, userLimit: 16 },
  },
  {
    what: "the job alone needs more than the budget allows per person",
    code: "USER_LIMIT",
    details: { ...base, gpus: 4, userGpus: 0, userLimit: 2 },
  },
  { what: "fits the cluster, not its ready nodes", code: "CLUSTER_DRAINING", details: { ...base, largestFreeGpus: 0 } },
  {
    what: "debug lane, its user at the cap",
    code: "DEBUG_USER_CAP",
    details: { ...base, gpus: 4, userDebugGpus: 6, debugCap: 8, position: 1, jobsAhead: 0 },
  },
  {
    what: "budget without a share of the cluster",
    code: "NO_ENTITLEMENT",
    details: { ...base, ratio: Infinity, gpus: 1, largestFreeGpus: 0 },
  },
  {
    what: "free GPUs reserved for a wide job starting in 29 minutes",
    code: "RESERVED_FOR",
    details: { ...base, gpus: 2, reservedForJobId: "130", reservedFrom: NOW + 29 * 60 },
  },
  {
    what: "free GPUs reserved for a job that can start now",
    code: "RESERVED_FOR",
    details: { ...base, gpus: 2, reservedForJobId: "135", reservedFrom: NOW },
  },
  {
    what: "the free GPUs it fits on are the debug lane's reserve",
    code: "DEBUG_RESERVE",
    details: { ...base, gpus: 8, largestFreeGpus: 8, debugReserveGpus: 5 },
  },
  {
    what: "the nodes it names are full while others are free",
    code: "NODE_CONSTRAINT",
    details: { ...base, gpus: 4, largestFreeGpus: 8 },
  },
  {
    what: "the only node with room goes into maintenance before its minimum would end",
    code: "PLANNED_DRAIN",
    details: { ...base, gpus: 4, largestFreeGpus: 8, drainNode: "h100-3", drainAt: NOW + 3 * 3600, drainSpan: 4 * 3600 },
  },
  { what: "jobs ahead took the free GPUs", code: "ORDER", details: { ...base, position: 2, jobsAhead: 1, gpus: 8 } },
  {
    what: "could preempt, but its budget is not far enough behind",
    code: "BUDGET_OVER_SHARE",
    details: { ...base, victimRatio: 0.9, margin: 0.1 },
  },
  {
    what: "debug lane: only runs that would lose more than the lane may cost could make room",
    code: "DEBUG_VICTIM_COST",
    details: { ...base, gpus: 1, largestFreeGpus: 0, debugVictimMaxCost: 4 * 3600, earliestStart: NOW },
  },
  {
    what: "debug lane: the same, with a limit under an hour and no estimate",
    code: "DEBUG_VICTIM_COST",
    details: { ...base, gpus: 2, largestFreeGpus: 1, debugVictimMaxCost: 1800, earliestStart: null },
  },
  {
    what: "waiting for protected jobs, earliest start in 7 h 58 min",
    code: "CONTRACTS",
    details: { ...base, earliestStart: NOW + 7 * 3600 + 58 * 60 },
  },
  { what: "waiting for protected jobs, no estimate", code: "CONTRACTS", details: { ...base, earliestStart: null } },
  { what: "not enough free GPUs, one GPU asked", code: "CAPACITY", details: { ...base, gpus: 1, largestFreeGpus: 0 } },
  { what: "not enough free GPUs, 24 GPUs on whole nodes", code: "CAPACITY", details: { ...base, gpus: 24, largestFreeGpus: 1 } },
  { what: "not enough free GPUs, could start any moment", code: "CAPACITY", details: { ...base, earliestStart: NOW } },
];

function render(): string {
  const lines = [
    "# Pending reasons as the scheduler core writes them (explain-pending.ts), one case per line pair.",
    "# Each sentence must be true, plain and grammatical for the numbers shown; no raw timestamps.",
    `# Numbers: nodes of ${NODE} GPUs; "now" is the cycle's time. Regenerate after reading the diff:`,
    "#   npx vitest run packages/scheduler-core/test/reason-sentences.test.ts -u",
    "",
  ];
  const explainer = new PendingExplainer(NODE);
  for (const c of cases) {
    const input: ReasonInput = {
      code: c.code,
      budgetPath: c.budget ?? "lab/language/pretraining",
      userId: "ada@tranche.example",
      now: NOW,
      details: c.details,
      ...(c.jobId === undefined ? {} : { jobId: c.jobId }),
    };
    const sentence = explainPending(input, NODE).sentence;
    // The per-cycle explainer (shared sentence groups) must say exactly the same.
    expect(explainer.sentence(input.code, input.budgetPath, input.userId, NOW, c.details, c.jobId)).toBe(sentence);
    lines.push(`${c.code}: ${c.what}`, `  ${sentence}`, "");
  }
  return lines.join("\n");
}

describe("pending reason sentences (golden)", () => {
  it("covers every pending reason code", () => {
    expect(new Set(cases.map((c) => c.code))).toEqual(new Set(PENDING_REASON_CODES));
  });

  it("renders every code's sentence exactly as the reviewed golden file says", async () => {
    await expect(render()).toMatchFileSnapshot("./golden/pending-reasons.txt");
  });

  it("carries no raw timestamps, no doubled prepositions, no bare unit letters and a unit on every number of GPUs", () => {
    const text = render();
    expect(text).not.toMatch(/t=\d/);
    expect(text).not.toMatch(/\b(from|by|before) in\b/);
    expect(text).not.toMatch(/\d+[smhd]\b|from now/); // "29m" read as metres or months
    expect(text).not.toMatch(/\b1 GPUs\b/);
    expect(text).not.toMatch(/free block( is)? \d+(?! GPU)/);
  });

  it("never states a wait that running jobs ending on their own could cut short as certain", () => {
    // The earliest start counts protected and bounded runs as holding their GPUs to their end; a job
    // read "cannot start for at least 7 h 59 min" and started 4 min later, when those runs finished.
    const waits = render().match(/cannot start for at least [^;(]*/g) ?? [];
    expect(waits.length).toBeGreaterThan(0);
    for (const w of waits) expect(w).toMatch(/unless the jobs holding the GPUs end sooner on their own/);
  });

  it("says a budget's ratio by what it means, never as a bare number", () => {
    const text = render();
    expect(text).not.toMatch(/projected ratio|ratio \d/);
    expect(text).toMatch(/budget lab\/language\/pretraining, which has used 85% of its share over the last 7 days/);
  });

  it("says a job's place in line as a person would, never as a position in order", () => {
    const text = render();
    expect(text).not.toMatch(/position \d+ in order|ahead in order/i);
    expect(text).toMatch(/\(4th in line, budget lab\/language\/pretraining, which/);
    expect(text).toMatch(/1 job ahead of it in line took the GPUs/);
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111, 112].map((n) => lineText(n))).toEqual([
      "next in line",
      "2nd in line",
      "3rd in line",
      "4th in line",
      "11th in line",
      "12th in line",
      "13th in line",
      "21st in line",
      "22nd in line",
      "23rd in line",
      "101st in line",
      "111th in line",
      "112th in line",
    ]);
    expect(lineText(1, true)).toBe("first in line");
  });
});
