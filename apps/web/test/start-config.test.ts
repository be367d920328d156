import { afterEach, describe, expect, it, vi } from "vitest";
import { register } from "../instrumentation";
import { webConfigProblem } from "../server/start-config";

describe("the web app's start-up check of its address lists", () => {
  afterEach(() => vi.restoreAllMocks());

  it("names the variable and the entry of a malformed list, and passes good or absent ones", () => {
    expect(webConfigProblem({ TRANCHE_TRUSTED_PROXIES: "10.0.0.0/8, 192.0.2.1" })).toBeNull();
    expect(webConfigProblem({})).toBeNull();
    expect(webConfigProblem({ TRANCHE_TRUSTED_PROXIES: "10.0.0.1,proxy.local" })).toMatch(
      /^TRANCHE_TRUSTED_PROXIES: 'proxy.local' is not an address/,
    );
    expect(webConfigProblem({ TRANCHE_METRICS_ALLOW: "300.1.1.1" })).toMatch(/^TRANCHE_METRICS_ALLOW: '300.1.1.1'/);
    expect(webConfigProblem({ TRANCHE_MAX_WAITING_JOBS_PER_USER: "0" })).toBeNull();
    expect(webConfigProblem({ TRANCHE_MAX_WAITING_JOBS_PER_USER: "lots" })).toMatch(
      /^TRANCHE_MAX_WAITING_JOBS_PER_USER must be a whole number of jobs \(0: no cap\), not 'lots'/,
    );
  });

  it("stops `next start` at once with one line when TRANCHE_TRUSTED_PROXIES is malformed, before serving anything", async () => {
    vi.stubEnv("NEXT_RUNTIME", "nodejs");
    vi.stubEnv("TRANCHE_TRUSTED_PROXIES", "10.0.0.0/33");
    const exit = vi.spyOn(process, "exit").mockImplementation((() => {
      throw new Error("exited");
    }) as never);
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    await expect(register()).rejects.toThrow("exited");
    expect(exit).toHaveBeenCalledWith(1);
    expect(error.mock.calls).toEqual([
      [expect.stringMatching(/^tranche: TRANCHE_TRUSTED_PROXIES: '10.0.0.0\/33' is not an address/)],
    ]);
    vi.unstubAllEnvs();
  });
});
