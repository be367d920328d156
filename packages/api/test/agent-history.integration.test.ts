// An agent's own comings and goings in its node's history: enrolling again and a restart, under another
// version or the same one, each leave a line in an operator's words (they left none), beside the state
// changes; a crash loop's restarts are counted on one line per ten minutes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getNodeNamed } from "@tranche/domain";
import { enrollAgent, handleHeartbeat, issueEnrollmentTokens } from "@tranche/domain/runtime";
import { makeWorld, type World } from "./fixtures";

let w: World;
beforeAll(async () => {
  w = await makeWorld("api_agent_history");
});
afterAll(async () => {
  await w?.db.drop();
});

const gpus = Array.from({ length: 2 }, (_, index) => ({
  index,
  uuid: `GPU-${index}`,
  name: "B200",
  memoryMiB: 1000,
  utilizationPercent: 0,
}));
const beat = (agentVersion: string, agentStartId?: string, nodeName = "h-restart") => ({
  nodeName,
  agentVersion,
  ...(agentStartId ? { agentStartId } : {}),
  health: { healthy: true },
  gpus,
  busyPercent: null,
  jobs: [],
});
const credentialOf = (r: Awaited<ReturnType<typeof enrollAgent>>) => (r.body as { credential: string }).credential;
const history = async (name = "h-restart") =>
  (await getNodeNamed(w.db.prisma, name)).events.map((e) => `${e.from} ${e.to} ${e.reason}`);
const minutes = (t0: number, m: number) => new Date(t0 + m * 60_000);

describe("a node's history", () => {
  it("says when its agent enrolled again and when it restarted under another version", async () => {
    const { prisma } = w.db;
    const cluster = await prisma.cluster.findFirstOrThrow();
    const [first, again] = await issueEnrollmentTokens(prisma, cluster.id, ["h-restart", "h-restart"]);
    const enrolled = await enrollAgent(prisma, { token: first!.token, nodeName: "h-restart", agentVersion: "1.4.0", gpus });
    expect(enrolled.status).toBe(200);
    expect((await handleHeartbeat(prisma, credentialOf(enrolled), beat("1.4.0"))).status).toBe(200);
    const before = await history();
    expect(before).toHaveLength(1); // down -> ready at its first healthy heartbeat; nothing else yet

    // The same version again is no restart: no line.
    expect((await handleHeartbeat(prisma, credentialOf(enrolled), beat("1.4.0"))).status).toBe(200);
    expect(await history()).toEqual(before);

    const upgraded = await handleHeartbeat(prisma, credentialOf(enrolled), beat("1.5.0"));
    expect(upgraded.status).toBe(200);
    expect((await history())[0]).toBe("READY READY Agent restarted (version 1.5.0, was 1.4.0).");

    const reenrolled = await enrollAgent(prisma, { token: again!.token, nodeName: "h-restart", agentVersion: "1.5.0", gpus });
    expect(reenrolled.status).toBe(200);
    expect((await history())[0]).toBe("READY READY Agent enrolled again (version 1.5.0).");
  });

  it("says when its agent restarted under the same version, told by the id it makes at each start", async () => {
    const { prisma } = w.db;
    const cluster = await prisma.cluster.findFirstOrThrow();
    const [token] = await issueEnrollmentTokens(prisma, cluster.id, ["h-loop"]);
    const enrolled = await enrollAgent(prisma, { token: token!.token, nodeName: "h-loop", agentVersion: "2.0.0", gpus });
    const cred = credentialOf(enrolled);
    const t0 = Date.now();
    const send = (start: string, at: number, version = "2.0.0") =>
      handleHeartbeat(prisma, cred, beat(version, start, "h-loop"), minutes(t0, at));
    expect((await send("start-a", 0)).status).toBe(200);
    expect((await send("start-a", 0.1)).status).toBe(200);
    expect(await history("h-loop")).toEqual(["DOWN READY First healthy heartbeat after enrollment: READY."]);

    // A new start under the same version: a line (it left none).
    expect((await send("start-b", 1)).status).toBe(200);
    expect((await history("h-loop"))[0]).toBe("READY READY Agent restarted (version 2.0.0).");
    expect(await history("h-loop")).toHaveLength(2);
  });

  it("counts a crash loop's restarts on one line per ten minutes, where each wrote its own", async () => {
    const { prisma } = w.db;
    const cluster = await prisma.cluster.findFirstOrThrow();
    const [token] = await issueEnrollmentTokens(prisma, cluster.id, ["h-crash"]);
    const enrolled = await enrollAgent(prisma, { token: token!.token, nodeName: "h-crash", agentVersion: "3.0.0", gpus });
    const cred = credentialOf(enrolled);
    const t0 = Date.now();
    const send = (start: string, at: number, version = "3.0.0") =>
      handleHeartbeat(prisma, cred, beat(version, start, "h-crash"), minutes(t0, at));
    await send("s0", 0);
    // Fourteen starts in nine minutes, each heartbeating twice: one line, saying how many.
    for (let i = 1; i <= 14; i++) {
      expect((await send(`s${i}`, (i * 9) / 14)).status).toBe(200);
      expect((await send(`s${i}`, (i * 9) / 14 + 0.01)).status).toBe(200);
    }
    const looped = await history("h-crash");
    expect(looped).toHaveLength(2);
    expect(looped[0]).toBe("READY READY Agent restarted 14 times in 9 minutes (version 3.0.0).");
    // An upgrade within those ten minutes is counted there too, saying the version before them.
    await send("s15", 9.5, "3.1.0");
    expect(await history("h-crash")).toEqual([
      "READY READY Agent restarted 15 times in 9 minutes (version 3.1.0, was 3.0.0).",
      looped[1],
    ]);
    // Ten minutes after the line's first restart, the next restart starts a line of its own.
    await send("s16", 11, "3.1.0");
    const later = await history("h-crash");
    expect(later).toHaveLength(3);
    expect(later[0]).toBe("READY READY Agent restarted (version 3.1.0).");
  });

  it("an agent that enrolls again has its enrollment's line, not a restart's too", async () => {
    const { prisma } = w.db;
    const cluster = await prisma.cluster.findFirstOrThrow();
    const [first, again] = await issueEnrollmentTokens(prisma, cluster.id, ["h-again", "h-again"]);
    const one = await enrollAgent(prisma, { token: first!.token, nodeName: "h-again", agentVersion: "4.0.0", gpus });
    expect((await handleHeartbeat(prisma, credentialOf(one), beat("4.0.0", "old-start", "h-again"))).status).toBe(200);
    const two = await enrollAgent(prisma, { token: again!.token, nodeName: "h-again", agentVersion: "4.0.0", gpus });
    expect((await handleHeartbeat(prisma, credentialOf(two), beat("4.0.0", "new-start", "h-again"))).status).toBe(200);
    expect(await history("h-again")).toEqual([
      "READY READY Agent enrolled again (version 4.0.0).",
      "DOWN READY First healthy heartbeat after enrollment: READY.",
    ]);
  });
});
