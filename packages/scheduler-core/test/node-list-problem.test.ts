import { describe, expect, it } from "vitest";
import { nodeListProblem } from "../src";

// Submit and update ask the core whether a job's node lists can ever be kept on its cluster, so that
// the words a person reads follow placement's own rule (one node up to a node's size, else whole nodes).
const cluster = {
  name: "h100",
  nodes: [
    { name: "a", gpuCount: 8 },
    { name: "b", gpuCount: 8 },
    { name: "c", gpuCount: 4 },
  ],
};

describe("nodeListProblem", () => {
  it("keeps a job without lists, and lists that leave room for its shape", () => {
    expect(nodeListProblem({ gpus: 16 }, cluster)).toBeNull();
    expect(nodeListProblem({ gpus: 4, nodes: ["c"] }, cluster)).toBeNull();
    expect(nodeListProblem({ gpus: 16, excludeNodes: ["c"] }, cluster)).toBeNull();
  });

  it("names an unknown node in the list that holds it", () => {
    expect(nodeListProblem({ gpus: 1, excludeNodes: ["z"] }, cluster)).toEqual({
      field: "excludeNodes",
      message: "cluster 'h100' has no node 'z'",
    });
  });

  it("refuses lists that leave no node, or none large enough, or too few whole nodes", () => {
    expect(nodeListProblem({ gpus: 1, excludeNodes: ["a", "b", "c"] }, cluster)?.message).toBe(
      "the node lists leave no node of cluster 'h100' to run on",
    );
    expect(nodeListProblem({ gpus: 8, nodes: ["c"] }, cluster)).toEqual({
      field: "nodes",
      message: "8 GPUs must fit on one node, but no node the job may use has that many (it may use c)",
    });
    expect(nodeListProblem({ gpus: 16, nodes: ["a", "c"] }, cluster)?.message).toBe(
      "16 GPUs need 2 whole nodes of 8 GPUs, but the job may use only 1 (a)",
    );
  });
});
