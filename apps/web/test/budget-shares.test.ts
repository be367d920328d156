import { describe, expect, it } from "vitest";
import { SEGMENT_PAD_PX, ofCluster, segmentLabel } from "../lib/budget-shares";

// A stand-in for the browser's measure: 7 px a character.
const width = (text: string) => text.length * 7;

describe("a segment of the allocation strip", () => {
  it("names its budget and share when both fit", () => {
    const label = "multilingual 10%";
    expect(segmentLabel("multilingual", "10%", width(label) + 2 * SEGMENT_PAD_PX, width)).toBe(label);
  });
  it("too narrow for its name, shows the share alone; too narrow for that, nothing: never a cut-off fragment", () => {
    expect(segmentLabel("multilingual", "8.5%", width("multilingual 8.5%") + 2 * SEGMENT_PAD_PX - 1, width)).toBe("8.5%");
    expect(segmentLabel("multilingual", "8.5%", width("8.5%") + 2 * SEGMENT_PAD_PX, width)).toBe("8.5%");
    expect(segmentLabel("multilingual", "8.5%", width("8.5%") + 2 * SEGMENT_PAD_PX - 1, width)).toBe("");
    expect(segmentLabel("safety", "0%", 0, width)).toBe("");
  });
});

describe("a node's share of the cluster", () => {
  const nodes = [
    { id: "lab", parentId: null },
    { id: "language", parentId: "lab" },
    { id: "evaluation", parentId: "language" },
    { id: "vision", parentId: "lab" },
  ];
  const ppm: Record<string, number> = { language: 450_000, evaluation: 150_000, vision: 300_000 };

  it("is the product of the shares down its path; the root holds the whole cluster", () => {
    const of = ofCluster(nodes, (id) => ppm[id] ?? 0);
    expect(of.get("lab")).toBe(1);
    expect(of.get("language")).toBeCloseTo(0.45);
    expect(of.get("evaluation")).toBeCloseTo(0.0675);
    expect(of.get("vision")).toBeCloseTo(0.3);
  });
  it("follows a changed share down to the node's children", () => {
    const of = ofCluster(nodes, (id) => (id === "language" ? 500_000 : (ppm[id] ?? 0)));
    expect(of.get("evaluation")).toBeCloseTo(0.075);
    expect(of.get("vision")).toBeCloseTo(0.3);
  });
});
