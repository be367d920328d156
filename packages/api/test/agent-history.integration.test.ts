// An agent's own comings and goings in its node's history: enrolling again and a restart under another
// version each leave a line in an operator's words (they left none), beside the state changes.
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
const beat = (agentVersion: string) => ({
  nodeName: "h-restart",
  agentVersion,
  health: { healthy: true },
  gpus,
  busyPercent: null,
  jobs: [],
});
const credentialOf = (r: Awaited<ReturnType<typeof enrollAgent>>) => (r.body as { credential: string }).credential;
const history = async () => (await getNodeNamed(w.db.prisma, "h-restart")).events.map((e) => `${e.from} ${e.to} ${e.reason}`);

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
});
