import { describe, expect, it } from "vitest";
import { RESERVED_ENV, fieldIssues, issuesSentence, submitJobInput } from "../src";

// What REST and tRPC answer for bad input (fieldIssues, then one sentence), and what the CLI prints
// (the issues' own messages): both must name the field and say what is wrong with it.
const sentence = (r: { success: boolean; error?: Parameters<typeof fieldIssues>[0] }) =>
  r.success ? "accepted" : issuesSentence(fieldIssues(r.error!));
const base = { cluster: "h100", budget: "lab/a/b", gpus: 1, minRuntime: "2h", command: "python x.py" };

describe("a job's environment", () => {
  const env = (e: string, field: "env" | "secretEnv" = "env") =>
    sentence(submitJobInput.safeParse({ ...base, [field]: JSON.parse(e) }));
  it("refuses the variables Tranche sets for each job, naming them", () => {
    expect(env('{"CUDA_VISIBLE_DEVICES":"0,1"}')).toBe(
      "env.CUDA_VISIBLE_DEVICES: CUDA_VISIBLE_DEVICES is set by the node agent for each job (the GPUs it was given); remove it",
    );
    expect(env('{"OK":"1","TRANCHE_JOB_ID":"5"}', "secretEnv")).toBe(
      "secretEnv.TRANCHE_JOB_ID: TRANCHE_JOB_ID is set by the node agent for each job (its id); remove it",
    );
    for (const name of Object.keys(RESERVED_ENV))
      expect(env(JSON.stringify({ [name]: "x" })), name).toMatch(new RegExp(`^env\\.${name}: ${name} is set by .*; remove it$`));
    // Read by fake-GPU agents, never set: a job may still give it. Names are case-sensitive.
    expect(env('{"TRANCHE_FAKE_GPU_UTIL":"3","cuda_visible_devices":"0","TRANCHE_MINE":"1"}')).toBe("accepted");
  });

  it("refuses __proto__ by name instead of dropping it", () => {
    expect(env('{"__proto__":"x"}')).toBe(
      "env.__proto__: __proto__ cannot be an environment variable name (the server cannot hold it in an object); rename it",
    );
    expect(env('{"A":"1","__proto__":{"B":"2"}}', "secretEnv")).toMatch(/^secretEnv\.__proto__: __proto__ cannot be/);
  });

  it("keeps names an object inherits (constructor, toString) as ordinary variables", () => {
    const r = submitJobInput.safeParse({ ...base, secretEnv: { constructor: "x", toString: "y" } });
    expect(sentence(r)).toBe("accepted");
    expect(r.data?.secretEnv).toEqual({ constructor: "x", toString: "y" });
  });
});

describe("the variables the node agent sets", () => {
  it("are the ones refused in a job's env (runner.ts and RESERVED_ENV agree)", async () => {
    const { readFileSync } = await import("node:fs");
    const src = readFileSync(new URL("../../../apps/node-agent/src/runner.ts", import.meta.url), "utf8");
    const block = /\.\.\.a\.env,\n([\s\S]*?)\n\s*\.\.\.\(session/.exec(src)?.[1] ?? "";
    const set = [...block.matchAll(/^\s*([A-Z_]+):/gm)].map((m) => m[1]);
    expect(set.length).toBeGreaterThan(10);
    expect(set.sort()).toEqual(
      Object.keys(RESERVED_ENV)
        .filter((k) => !k.startsWith("TRANCHE_ARRAY_"))
        .sort(),
    );
  });
});
