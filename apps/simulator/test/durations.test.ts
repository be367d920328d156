import { describe, expect, it } from "vitest";
import { parseDuration as formParse, submitJobInput } from "@tranche/contracts";
import { validateScenario } from "../src/scenario.js";
import { parseTraceCsv, type TraceContext } from "../src/trace.js";

/**
 * One duration parser for every entry point: the REST/tRPC/CLI contract (submitJobInput), the web
 * form (parseDuration from @tranche/contracts), scenario files and trace rows. The same inputs are
 * accepted everywhere with the same seconds, or rejected everywhere with the same message.
 */
const ACCEPTED: [string, number][] = [
  ["1h30m", 5400],
  ["90m", 5400],
  ["5400", 5400],
  ["5400s", 5400],
  ["1.5h", 5400],
  ["1h 30m", 5400],
];
const REJECTED = ["soon", "3w", "-5", "-1h", "-90m", "- 1h30m", "1.5", "90 minutes", ""];
const message = (field: string, v: string) =>
  v.startsWith("-")
    ? `${field} must not be negative, got ${v}`
    : v === "1.5"
      ? `${field} must be whole seconds, got 1.5`
      : `${field} "${v}" is not a duration: use whole seconds (5400) or units s, m, h, d (5400s, 90m, 1h30m)`;

const ctx: TraceContext = {
  clusters: new Map([["h100", { name: "h100", gpuType: "H100", nodes: 4, gpusPerNode: 8 }]]),
  budgets: new Set(["a"]),
  treePaths: new Set(["a"]),
  maxMinRuntime: 8 * 3600,
};

function viaRest(v: string): { seconds: number | null; message: string | null } {
  const r = submitJobInput.safeParse({ cluster: "c", budget: "a", gpus: 8, minRuntime: v, command: "x" });
  if (r.success) return { seconds: r.data.minRuntime, message: null };
  return { seconds: null, message: r.error.issues.find((i) => i.path[0] === "minRuntime")?.message ?? null };
}
function viaScenario(v: string): { seconds: number | null; message: string | null } {
  try {
    const s = validateScenario(
      {
        clusters: [{ name: "h100", gpuType: "H100", nodes: 1, gpusPerNode: 8 }],
        budgets: { name: "lab", children: [{ name: "a", allocation: { h100: 1 } }] },
        simulation: { restartOverhead: v },
        jobs: [{ id: "x", submit: 0, budget: "a", gpus: 8, duration: 60 }],
      },
      { file: "s.yaml", baseDir: "." },
    );
    return { seconds: s.simulation.restartOverhead, message: null };
  } catch (e) {
    const errors = (e as { errors?: string[] }).errors ?? [String(e)];
    return { seconds: null, message: errors.join("\n") };
  }
}
function viaTrace(v: string): { seconds: number | null; message: string | null } {
  const { jobs, errors } = parseTraceCsv(
    `id,submit,budget,user,cluster,gpus,duration,min_runtime\nj,0,a,u,h100,8,9h,${v}\n`,
    "t.csv",
    ctx,
  );
  return jobs.length > 0 ? { seconds: jobs[0]!.minRuntime, message: null } : { seconds: null, message: errors.join("\n") };
}

describe("durations at every entry point", () => {
  for (const [input, secs] of ACCEPTED) {
    it(`accepts ${JSON.stringify(input)} as ${secs} s everywhere`, () => {
      expect(formParse(input)).toBe(secs);
      expect(viaRest(input).seconds).toBe(secs);
      expect(viaScenario(input).seconds).toBe(secs);
      expect(viaTrace(input).seconds).toBe(secs);
    });
  }
  for (const input of REJECTED) {
    it(`rejects ${JSON.stringify(input)} everywhere with the same message`, () => {
      expect(formParse(input)).toBeNull();
      // A submission names the field in the form's and the CLI's words; files name their own keys.
      expect(viaRest(input).message).toBe(message("Minimum runtime", input));
      expect(viaScenario(input).message).toContain(message("restartOverhead", input));
      if (input !== "") expect(viaTrace(input).message).toContain(message("min_runtime", input));
    });
  }
});
