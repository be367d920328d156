import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { NodeView } from "@tranche/domain";
import { NodeCard } from "../app/(app)/nodes/node-card";

const NOW = Date.parse("2026-12-07T10:00:00Z");
const node = (state: string): NodeView =>
  ({
    id: "n4",
    name: "b200-4",
    state,
    gpuCount: 2,
    usedGpus: 0,
    health: "HEALTHY",
    lastHeartbeatAt: "2026-12-01T10:00:00Z",
    stateChangedAt: "2026-12-07T09:57:00Z",
    gpus: [0, 1].map((index) => ({ index, jobId: null, budget: null, charged: null, squattingSince: null })),
  }) as unknown as NodeView;
const card = (state: string) =>
  renderToStaticMarkup(
    createElement(NodeCard, { node: node(state), colors: new Map(), selected: false, now: NOW, onSelect: () => {} }),
  );

describe("retired nodes on the Nodes page", () => {
  it("are listed only with 'Show retired nodes', through node.list's retired option", () => {
    const source = readFileSync(join(__dirname, "../app/(app)/nodes/nodes-view.tsx"), "utf8");
    expect(source).toContain("Show retired");
    expect(source).toContain("trpc.node.list.queryOptions({ cluster: clusterName, retired: showRetired })");
  });

  it("show a retired node greyed, its state in words and since when, not its last heartbeat", () => {
    const html = card("RETIRED");
    expect(html).toContain('class="node-card s-RETIRED"');
    expect(html).toContain('<span class="badge b-RETIRED">Retired</span>');
    expect(html).toContain("retired 3 min ago");
    expect(html).not.toContain("♥");
    expect(html).toContain('title="GPU 0: retired"');
    expect(card("READY")).toContain("♥ 6 d ago");
  });
});
