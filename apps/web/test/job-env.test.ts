import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { JobEnv } from "../app/(app)/jobs/[id]/job-env";

const render = (env: Record<string, string>, secretEnvNames: string[] = []) =>
  renderToStaticMarkup(createElement("dl", null, createElement(JobEnv, { env, secretEnvNames })));

describe("a job's environment on its page", () => {
  it("shows the researcher's own variables under Environment, and Tranche's apart, said to be Tranche's", () => {
    const html = render({ SEED: "1", TRANCHE_ARRAY_JOB_ID: "160", TRANCHE_ARRAY_INDEX: "3" }, ["HF_TOKEN"]);
    const own = /<dt>Environment<\/dt><dd data-testid="job-env">(.*?)<\/dd>/.exec(html)?.[1] ?? "";
    expect(own).toContain("<code>SEED=1</code>");
    expect(own).toContain("<code>HF_TOKEN</code>");
    expect(own).not.toContain("TRANCHE_");
    const tranche = /<dt>Set by Tranche<\/dt><dd data-testid="job-env-tranche">(.*?)<\/dd>/.exec(html)?.[1] ?? "";
    expect(tranche.indexOf("TRANCHE_ARRAY_INDEX=3")).toBeGreaterThan(-1);
    expect(tranche.indexOf("TRANCHE_ARRAY_JOB_ID=160")).toBeGreaterThan(tranche.indexOf("TRANCHE_ARRAY_INDEX"));
    expect(tranche).toContain("they were not part of its submission");
  });

  it("has no Environment heading for an array task whose submitter set nothing, and no Tranche part for a plain job", () => {
    expect(render({ TRANCHE_ARRAY_INDEX: "0", TRANCHE_ARRAY_JOB_ID: "7" })).not.toContain("<dt>Environment</dt>");
    const plain = render({ SEED: "1" });
    expect(plain).toContain("<dt>Environment</dt>");
    expect(plain).not.toContain("Set by Tranche");
    expect(render({})).toBe("<dl></dl>");
  });
});
