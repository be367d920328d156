import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { NodeHealth } from "../app/(app)/nodes/node-health";

const html = (health: "HEALTHY" | "UNHEALTHY", healthDetails: unknown) =>
  renderToStaticMarkup(createElement(NodeHealth, { node: { health, healthDetails } }));

describe("the nodes page's health of a node", () => {
  it("says what an unhealthy node's agent reported", () => {
    const out = html("UNHEALTHY", { errors: ["GPU 3 has XID 79", "nvidia-smi failed: GPU is lost"], driverVersion: null });
    expect(out).toContain("unhealthy");
    expect(out).toContain("GPU 3 has XID 79; nvidia-smi failed: GPU is lost");
  });

  it("says only the word when healthy, or when the agent gave no words", () => {
    expect(html("HEALTHY", { errors: [], driverVersion: null })).toBe("healthy");
    expect(html("UNHEALTHY", {})).toBe("unhealthy");
  });
});
