import { describe, expect, it } from "vitest";
import { effectiveProtectedUntil } from "../src/jobs/job-view";

const t = (s: number): Date => new Date(1_800_000_000_000 + s * 1000);

describe("effectiveProtectedUntil (the job page's protection end)", () => {
  it("cuts the stored contract end short when the cluster's squatting policy applies", () => {
    const job = { startedAt: t(0), protectedUntil: t(8 * 3600), minRuntimeSec: 8 * 3600, squattingSince: t(1800) };
    expect(effectiveProtectedUntil({ ...job, cluster: { squattingUnprotectAfterSec: 3600 } })).toEqual(t(1800 + 3600));
  });

  it("keeps the stored end without the policy, without the flag, or when the contract ends first", () => {
    const job = { startedAt: t(0), protectedUntil: t(2 * 3600), minRuntimeSec: 2 * 3600, squattingSince: t(1800) };
    expect(effectiveProtectedUntil({ ...job, cluster: { squattingUnprotectAfterSec: null } })).toEqual(t(2 * 3600));
    expect(effectiveProtectedUntil({ ...job, squattingSince: null, cluster: { squattingUnprotectAfterSec: 3600 } })).toEqual(
      t(2 * 3600),
    );
    expect(effectiveProtectedUntil({ ...job, cluster: { squattingUnprotectAfterSec: 6 * 3600 } })).toEqual(t(2 * 3600));
  });

  it("leaves an unallocated run (its stored end is its start) unprotected, whatever its contract asked", () => {
    const job = { startedAt: t(0), protectedUntil: t(0), minRuntimeSec: 2 * 3600, squattingSince: t(1800) };
    expect(effectiveProtectedUntil({ ...job, cluster: { squattingUnprotectAfterSec: 3600 } })).toEqual(t(0));
  });

  it("cuts short by the contract's minRuntime from the latest start, as the scheduler does", () => {
    // Flagged at 30 min, unprotected after 1 h of it: 1.5 h, inside the 2 h contract from the start at 10 min.
    const job = { startedAt: t(600), protectedUntil: t(600 + 2 * 3600), minRuntimeSec: 2 * 3600, squattingSince: t(1800) };
    expect(effectiveProtectedUntil({ ...job, cluster: { squattingUnprotectAfterSec: 3600 } })).toEqual(t(1800 + 3600));
    expect(effectiveProtectedUntil({ ...job, cluster: { squattingUnprotectAfterSec: 3 * 3600 } })).toEqual(t(600 + 2 * 3600));
  });
});
