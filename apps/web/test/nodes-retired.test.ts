import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { NodeView } from "@tranche/domain";
import { NodeCard } from "../app/(app)/nodes/node-card";
import { NodesView } from "../app/(app)/nodes/nodes-view";
import { renderWithAnswers } from "./support/render-with-answers";

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
  it("are left out until 'Show retired nodes' is ticked: unticked at first, the page asks node.list without them", () => {
    const inService = { ...node("READY"), id: "n1", name: "b200-1" };
    const { html, asked } = renderWithAnswers(createElement(NodesView), (api, qc) => {
      qc.setQueryData(api.me.get.queryKey(), { role: "OPERATOR" } as never);
      qc.setQueryData(api.cluster.list.queryKey(), [{ id: "c1", name: "b200" }] as never);
      qc.setQueryData(api.node.list.queryKey({ cluster: "b200", retired: false }), [inService]);
      qc.setQueryData(api.node.list.queryKey({ cluster: "b200", retired: true }), [inService, node("RETIRED")]);
    });
    expect(asked.filter((q) => q.path === "node.list")).toEqual([
      { path: "node.list", input: { cluster: "b200", retired: false } },
    ]);
    expect(html).toContain("b200-1");
    expect(html).not.toContain("b200-4");
    expect(html).toMatch(/<input type="checkbox"\/> Show retired\s+nodes/);
  });

  it("show a retired node greyed, its state in words and since when, not its last heartbeat", () => {
    const html = card("RETIRED");
    expect(html).toContain('class="node-card s-RETIRED"');
    expect(html).toContain('<span class="badge b-RETIRED">Retired</span>');
    expect(html).toContain("retired 3 min ago");
    expect(html).not.toContain("♥");
    expect(html).toContain('title="GPU 0: retired"');
    expect(card("READY")).toContain('<span aria-hidden="true">♥</span><span class="sr-only">last heartbeat</span> 6 d ago');
  });
});
