import { createServer, type Server } from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { heartbeatRequestSchema, type HeartbeatResponse } from "@tranche/contracts";
import { NodeAgent } from "../src/agent";
import { runAssignment } from "./support/assignment";

// The agent against a stand-in control plane that answers heartbeats with a long period (30 s), as a
// real one may: a job's output must still arrive within seconds, not one 32 KiB chunk per period.

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const PRINTED = 3_000_000;

const job = runAssignment("7", `yes 0123456789abcdef | head -c ${PRINTED}`, {
  name: "loud",
  startBy: new Date(Date.now() + 3_600_000).toISOString(),
});

/** A control plane that assigns `job` once and keeps every heartbeat's stdout. */
async function standInControlPlane() {
  const seen = { beats: 0, stdout: "", largestBeat: 0 };
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString("utf8")));
    req.on("end", () => {
      const beat = heartbeatRequestSchema.parse(JSON.parse(body));
      seen.beats++;
      seen.largestBeat = Math.max(seen.largestBeat, Buffer.byteLength(body));
      for (const c of beat.logs) if (c.stream === "stdout") seen.stdout += c.text;
      const answer: HeartbeatResponse = {
        nodeId: "node-1",
        nodeName: "n1",
        state: "READY",
        serverTime: new Date().toISOString(),
        heartbeatIntervalSec: 30,
        run: beat.jobs.some((j) => j.segmentId === "7") ? [] : [job],
        stop: [],
        acknowledged: [],
      };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  return { url: `http://127.0.0.1:${address.port}`, seen };
}

describe("the agent's log uploads", () => {
  it("sends a job's large output within seconds, beat after beat, while some is left (the period is 30 s)", async () => {
    const cp = await standInControlPlane();
    const dir = mkdtempSync(join(tmpdir(), "tranche-agent-logs-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, "credential"), "tnc_test", { mode: 0o600 });
    const agent = new NodeAgent({
      server: cp.url,
      nodeName: "n1",
      dir,
      enrollmentToken: null,
      fakeGpus: 1,
      log: () => {},
      longPoll: false,
      cgroups: false,
    });
    await agent.start();
    cleanups.push(async () => {
      agent.stop();
      await agent.stopAllJobs(1000);
    });
    const end = Date.now() + 15_000;
    while (cp.seen.stdout.length < PRINTED && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    expect(cp.seen.stdout.length).toBe(PRINTED);
    expect(cp.seen.stdout.startsWith("0123456789abcdef\n0123456789abcdef\n")).toBe(true);
    // More than one beat carried it: each stays far below the control plane's 8 MiB request limit.
    expect(cp.seen.beats).toBeGreaterThan(2);
    expect(cp.seen.largestBeat).toBeLessThan(2.5 * 1024 * 1024);
  }, 30_000);
});
