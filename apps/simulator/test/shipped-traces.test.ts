import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { defaultTracesDir, findRepoRoot, importHelios, importPhilly, loadScenarioFile } from "../src/index.js";

const root = findRepoRoot(import.meta.dirname);

describe("the public traces shipped in data/traces", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("are the default traces folder, inside the repository", () => {
    vi.stubEnv("TRANCHE_TRACES_DIR", "");
    expect(defaultTracesDir()).toBe(join(root, "data", "traces"));
  });

  it("give way to TRANCHE_TRACES_DIR", () => {
    vi.stubEnv("TRANCHE_TRACES_DIR", "/srv/traces");
    expect(defaultTracesDir()).toBe(resolve("/srv/traces"));
  });

  it("import as the scenarios read them: every Philly job and the Helios GPU jobs", () => {
    vi.stubEnv("TRANCHE_TRACES_DIR", "");
    const philly = importPhilly({ tracesDir: defaultTracesDir() });
    expect(philly.jobs).toHaveLength(109_532);
    const helios = importHelios({ tracesDir: defaultTracesDir() });
    // 15,000 rows of which 4,204 are CPU-only (skipped).
    expect(helios.jobs).toHaveLength(10_796);
  });
});

describe("the committed scenarios", () => {
  const dir = join(root, "apps", "simulator", "scenarios");
  const files = readdirSync(dir).filter((f) => /\.(ya?ml|json)$/.test(f) && !f.startsWith("tmp-"));

  it.each(files)("%s loads", (file) => {
    const s = loadScenarioFile(join(dir, file));
    expect(s.jobs.length).toBeGreaterThan(0);
  });

  it("keep the workloads the quality figures in bench/README were measured on", () => {
    const size = (file: string) => {
      const s = loadScenarioFile(join(dir, file));
      return [s.jobs.length, s.clusters.reduce((n, c) => n + c.nodes * c.gpusPerNode, 0)];
    };
    expect(size("philly-overload.yaml")).toEqual([77_268, 816]);
    expect(size("philly-merged.yaml")).toEqual([15_694, 400]);
    expect(size("helios-overload.yaml")).toEqual([10_796, 432]);
  });
});
