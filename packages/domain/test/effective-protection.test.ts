import { describe, expect, it } from "vitest";
import { effectiveProtectedUntil } from "../src/jobs/job-view";

const t = (s: number): Date => new Date(1_800_000_000_000 + s * 1000);

describe("effectiveProtectedUntil (the job page's protection end)", () => {
  it("cuts the stored contract end short when the cluster's squatting policy applies", () => {
    const job = { startedAt: t(0), protectedUntil: t(8 * 3600), squattingSince: t(1800) };
    expect(effectiveProtectedUntil({ ...job, cluster: { squattingUnprotectAfterSec: 3600 } })).toEqual(t(1800 + 3600));
  });

  it("keeps the stored end without the policy, without the flag, or when the contract ends first", () => {
    const job = { startedAt: t(0), protectedUntil: t(2 * 3600), squattingSince: t(1800) };
    expect(effectiveProtectedUntil({ ...job, cluster: { squattingUnprotectAfterSec: null } })).toEqual(t(2 * 3600));
    expect(effectiveProtectedUntil({ ...job, squattingSince: null, cluster: { squattingUnprotectAfterSec: 3600 } })).toEqual(
      t(2 * 3600),
    );
    expect(effectiveProtectedUntil({ ...job, cluster: { squattingUnprotectAfterSec: 6 * 3600 } })).toEqual(t(2 * 3600));
  });
});
