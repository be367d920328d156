import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { QueueRatio } from "@tranche/domain";
import { Ratios } from "../app/(app)/queue/[cluster]/ratios";

const ratio = (path: string, r: number | null, projected: number | null): QueueRatio => ({
  treeNodeId: path,
  name: path,
  path,
  parentId: null,
  depth: 1,
  effectiveAllocation: 0.5,
  usageGpuSeconds: 0,
  entitlementGpuSeconds: 0,
  ratio: r,
  projectedRatio: projected,
  heldGpus: 0,
});

describe("the live queue's fair-share ratios", () => {
  it("say the share used in the Budgets page's words, not a bare ratio", () => {
    const html = renderToStaticMarkup(createElement(Ratios, { ratios: [ratio("lab", 0.27, 1.43), ratio("guests", null, null)] }));
    expect(html).toContain('data-testid="ratio-7d-lab">27% of its share<');
    expect(html).toContain('data-testid="ratio-projected-lab">1.4 times its share<');
    expect(html).toContain('data-testid="ratio-7d-guests">no share here<');
    expect(html).not.toContain("0.27");
  });
});
