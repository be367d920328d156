import { join, resolve } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { defaultTracesDir, findRepoRoot, importHelios, importPhilly } from "../src/index.js";

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
