import { describe, expect, it } from "vitest";
import { agentServer } from "../src/admin";

describe("the agent command an enrollment token prints", () => {
  it("names the server this CLI signed in to, but not this machine's loopback, which a GPU host cannot reach", () => {
    expect(agentServer("https://tranche.lab.example/")).toBe("https://tranche.lab.example");
    expect(agentServer("http://10.0.0.5:3000")).toBe("http://10.0.0.5:3000");
    expect(agentServer("http://127.0.0.1:3000")).toBe("<url the GPU hosts reach>");
    expect(agentServer("http://localhost:3000")).toBe("<url the GPU hosts reach>");
    expect(agentServer("not a url")).toBe("<url>");
  });
});
