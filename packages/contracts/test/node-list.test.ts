import { describe, expect, it } from "vitest";
import { expandNodeList, MAX_NODE_NAMES, nodeListsOverlap, submitJobInput } from "../src/index";
import { nodeListWords } from "../src/format";

describe("expandNodeList (Slurm's host lists)", () => {
  it("reads names, ranges that keep their width, and lists inside brackets, each name once", () => {
    expect(expandNodeList("gpu-03,gpu-04")).toEqual(["gpu-03", "gpu-04"]);
    expect(expandNodeList("gpu-[03-05]")).toEqual(["gpu-03", "gpu-04", "gpu-05"]);
    expect(expandNodeList("gpu-[08-10],gpu-[01,03]")).toEqual(["gpu-08", "gpu-09", "gpu-10", "gpu-01", "gpu-03"]);
    expect(expandNodeList("rack[1-2]-gpu, gpu-04, gpu-04")).toEqual(["rack1-gpu", "rack2-gpu", "gpu-04"]);
  });

  it("says what is wrong with a list it cannot read", () => {
    expect(expandNodeList("gpu-[05-03]", "--nodelist")).toBe("--nodelist: range 05-03 runs backwards");
    expect(expandNodeList("gpu-[a-b]", "--nodelist")).toBe(
      "--nodelist: 'a-b' in 'gpu-[a-b]' is not a number or a range like 03-05",
    );
    expect(expandNodeList("gpu-[03", "--exclude")).toBe("--exclude: 'gpu-[03' has an unmatched bracket");
    expect(expandNodeList(" , ", "--exclude")).toBe("--exclude names no node");
    expect(expandNodeList("n[0-999]")).toBe(`node list names more than ${MAX_NODE_NAMES} nodes`);
  });
});

describe("node lists in a submission", () => {
  const job = { cluster: "h100", budget: "lab/a", gpus: 1, minRuntime: "1h", command: "true" };

  it("refuses a node in both lists and an empty list, and keeps each name once", () => {
    const both = submitJobInput.safeParse({ ...job, nodes: ["a", "b"], excludeNodes: ["b"] });
    expect(both.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["excludeNodes", "node 'b' is both to run on and to avoid: a job cannot be kept off a node it must run on"],
    ]);
    expect(submitJobInput.safeParse({ ...job, nodes: [] }).error?.issues[0]?.message).toBe(
      "nodes must name at least one node (leave it out for none)",
    );
    expect(submitJobInput.parse({ ...job, nodes: ["a", "a"] }).nodes).toEqual(["a"]);
    expect(nodeListsOverlap(["a", "b"], ["a", "b"])).toBe(
      "nodes 'a', 'b' are both to run on and to avoid: a job cannot be kept off a node it must run on",
    );
  });

  it("words them for people", () => {
    expect(nodeListWords(["gpu-03"], [])).toBe("Runs only on gpu-03.");
    expect(nodeListWords([], ["a", "b", "c"])).toBe("Never runs on a, b or c.");
    expect(nodeListWords([], [])).toBeNull();
  });
});
