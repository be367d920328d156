import { createServer, type Server } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { NodeAgent } from "../src/agent";

// A host where nvidia-smi is missing: the enrollment went out with no GPUs and came back as
// "Malformed report: gpus: a node needs at least one GPU", which named neither nvidia-smi nor a fix.

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("enrolling a host whose nvidia-smi is missing", () => {
  it("says nvidia-smi was not found and how to name it, and sends no enrollment", async () => {
    let requests = 0;
    const server: Server = createServer((req, res) => {
      requests++;
      req.resume();
      res.writeHead(400, { "content-type": "application/json" }).end("{}");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const address = server.address();
    if (!address || typeof address === "string") throw new Error("no port");
    const dir = mkdtempSync(join(tmpdir(), "tranche-agent-enroll-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const lines: string[] = [];
    const agent = new NodeAgent({
      server: `http://127.0.0.1:${address.port}`,
      nodeName: "n1",
      dir,
      enrollmentToken: "tet_test",
      fakeGpus: null,
      nvidiaSmi: join(dir, "no-such-nvidia-smi"),
      log: (l) => lines.push(l),
      longPoll: false,
      cgroups: false,
    });
    expect(await agent.enrollOnly()).toBe(false);
    expect(requests).toBe(0);
    expect(lines.join("\n")).toContain(
      `cannot enroll: no GPUs found (nvidia-smi failed: ${join(dir, "no-such-nvidia-smi")} was not found (install the NVIDIA driver's nvidia-smi, or name it with --nvidia-smi PATH))`,
    );
  });
});
