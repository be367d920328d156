import { createServer, type Server } from "node:http";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { HeartbeatResponse } from "@tranche/contracts";
import { NodeAgent } from "../src/agent";

// A heartbeat refused with 401 may come from the wrong server (a mistyped --server, a proxy pointing at
// another Tranche) as well as from a revocation: the agent deleted its credential at the first one, so
// it could not rejoin its own control plane without a new token, and its jobs were stopped meanwhile.

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A control plane that refuses heartbeats while `refuse` is set and records the credentials offered. */
async function standIn() {
  const seen = { refuse: true as boolean, away: false as boolean, credentials: [] as string[] };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      seen.credentials.push(String(req.headers.authorization ?? ""));
      if (seen.away) {
        res.writeHead(503, { "content-type": "application/json", "retry-after": "5" }).end(
          JSON.stringify({
            error: { code: "UNAVAILABLE", message: "The database cannot be reached right now (it may be restarting)." },
          }),
        );
        return;
      }
      if (seen.refuse) {
        res
          .writeHead(401, { "content-type": "application/json" })
          .end(JSON.stringify({ error: { code: "UNAUTHENTICATED", message: "Unknown or revoked node credential." } }));
        return;
      }
      const answer: HeartbeatResponse = {
        nodeId: "node-1",
        nodeName: "n1",
        state: "READY",
        serverTime: new Date().toISOString(),
        heartbeatIntervalSec: 30,
        run: [],
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

/** An agent with no enrollment token whose stored credential is tnc_kept, logging into `lines`. */
function agentWithCredential(server: string) {
  const dir = mkdtempSync(join(tmpdir(), "tranche-agent-cred-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, "credential"), "tnc_kept", { mode: 0o600 });
  const lines: string[] = [];
  const agent = new NodeAgent({
    server,
    nodeName: "n1",
    dir,
    enrollmentToken: null,
    fakeGpus: 1,
    log: (l) => lines.push(l),
    longPoll: false,
    cgroups: false,
  });
  cleanups.push(() => agent.stop());
  return { dir, lines, agent };
}

describe("a refused heartbeat", () => {
  it("keeps the stored credential and offers it again, so the agent recovers once its own server answers", async () => {
    const cp = await standIn();
    const { dir, lines, agent } = agentWithCredential(cp.url);
    expect(await agent.beat()).toBeNull();
    expect(existsSync(join(dir, "credential")) && readFileSync(join(dir, "credential"), "utf8")).toBe("tnc_kept");
    expect(lines.join("\n")).toContain("the stored credential is kept");

    cp.seen.refuse = false;
    const answer = await agent.beat();
    expect(answer?.state).toBe("READY");
    expect(cp.seen.credentials).toEqual(["Bearer tnc_kept", "Bearer tnc_kept"]);
  });

  it("says a 503 is the server unavailable for a while, not a refusal, keeps its credential and beats again", async () => {
    const cp = await standIn();
    cp.seen.refuse = false;
    cp.seen.away = true;
    const { dir, lines, agent } = agentWithCredential(cp.url);
    expect(await agent.beat()).toBeNull();
    expect(lines.join("\n")).toContain("the server is unavailable");
    expect(lines.join("\n")).not.toContain("refused");
    expect(readFileSync(join(dir, "credential"), "utf8")).toBe("tnc_kept");
    cp.seen.away = false;
    expect((await agent.beat())?.state).toBe("READY");
  });
});

describe("a refused heartbeat with a spent enrollment token", () => {
  it("offers the token once, then keeps quiet: a retired node's agent logs a few lines, not two every heartbeat", async () => {
    const paths: string[] = [];
    const server: Server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        paths.push(String(req.url));
        const [code, message] = String(req.url).endsWith("/enroll")
          ? ["INVALID_ENROLLMENT_TOKEN", "The enrollment token is unknown, already used or expired."]
          : ["NODE_RETIRED", "Node n1 is retired."];
        res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: { code, message } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const address = server.address();
    if (!address || typeof address === "string") throw new Error("no port");
    const dir = mkdtempSync(join(tmpdir(), "tranche-agent-spent-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, "credential"), "tnc_kept", { mode: 0o600 });
    const lines: string[] = [];
    const agent = new NodeAgent({
      server: `http://127.0.0.1:${address.port}`,
      nodeName: "n1",
      dir,
      enrollmentToken: "tet_spent",
      fakeGpus: 1,
      log: (l) => lines.push(l),
      longPoll: false,
      cgroups: false,
    });
    cleanups.push(() => agent.stop());

    for (let i = 0; i < 6; i++) expect(await agent.beat()).toBeNull();

    expect(paths.filter((p) => p.endsWith("/enroll"))).toHaveLength(1);
    expect(paths.filter((p) => p.endsWith("/heartbeat"))).toHaveLength(6);
    expect(lines).toHaveLength(3);
    expect(lines[2]).toContain("the stored credential is kept");
    expect(readFileSync(join(dir, "credential"), "utf8")).toBe("tnc_kept");
  });
});
