// A person's requests through the sessions host to their sessions' servers are bounded (request-gate.ts,
// LIMITS.sessionRequestsPerUser and sessionBodyBytesPerUser): the session's server is its owner's code
// and may never answer, while each request holds its body in the web process everyone's requests share.
// Unbounded, 40 uploads of 16 MiB to a server that did not answer held 1.7 GB of it (a security audit).
import { createServer, type ServerResponse, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "@tranche/contracts";
import { createApiToken } from "@tranche/domain";
import { enterSessionRequest } from "../src/request-gate";
import { handleRest } from "../src/rest";
import { PROXY_BODY_BYTES } from "../src/rest/session-proxy";
import { makeWorld, runningSession, TEST_ORIGINS, type World } from "./fixtures";

let w: World;
let server: Server;
/** Requests that reached Ada's session's server, unanswered until the test lets them go. */
const waiting: ServerResponse[] = [];
let session = 0;
let token = "";

beforeAll(async () => {
  w = await makeWorld("api_session_proxy_gate");
  server = createServer((req, res) => {
    req.resume();
    waiting.push(res);
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  session = (await runningSession(w, w.users.ada, (server.address() as { port: number }).port)).id;
  token = (await createApiToken(w.db.prisma, w.users.ada, { name: "t" })).token;
}, 60_000);
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((ok) => server.close(ok));
  await w?.db.drop();
});

/** Ada's request to her session through the sessions host, with her API token. */
function toSession(method: "GET" | "POST", bytes = 0): Promise<Response> {
  return handleRest(
    new Request(`${TEST_ORIGINS.sessions}/api/v1/sessions/${session}/proxy/files`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        host: new URL(TEST_ORIGINS.sessions).host,
        ...(method === "POST" ? { "content-length": String(bytes) } : {}),
      },
      ...(method === "POST" ? { body: new Uint8Array(bytes) } : {}),
    }),
    `/sessions/${session}/proxy/files`,
    { prisma: w.db.prisma, origins: TEST_ORIGINS },
  );
}

async function answerAll(): Promise<void> {
  for (const res of waiting.splice(0)) res.end("ok");
}

const message = async (r: Response) => ((await r.json()) as { error: { message: string } }).error.message;

describe("one person's requests to their sessions", () => {
  it("past the bytes their bodies may hold at once are 429 with Retry-After, for that person only; answered ones free their place", async () => {
    const fit = LIMITS.sessionBodyBytesPerUser / PROXY_BODY_BYTES;
    const held = Array.from({ length: fit }, () => toSession("POST", PROXY_BODY_BYTES));
    await expect.poll(() => waiting.length, { timeout: 20_000 }).toBe(fit);
    const over = await toSession("POST", PROXY_BODY_BYTES);
    expect(over.status).toBe(429);
    expect(over.headers.get("retry-after")).toBe("1");
    expect(await message(over)).toBe(
      "Your requests to your sessions in progress carry 64 MiB, and at most 64 MiB may be on their way at once for one person; try again in a moment",
    );
    // A request without a body still goes: it holds nothing.
    const get = toSession("GET");
    await expect.poll(() => waiting.length).toBe(fit + 1);
    // Another person's are theirs.
    enterSessionRequest(w.users.maya.id, LIMITS.sessionBodyBytesPerUser)();
    await answerAll();
    expect((await Promise.all([...held, get])).map((r) => r.status)).toEqual(Array(fit + 1).fill(200));
    const again = toSession("POST", 1024);
    await expect.poll(() => waiting.length).toBe(1);
    await answerAll();
    expect((await again).status).toBe(200);
  }, 60_000);

  it("past the requests one person may have in flight are 429", async () => {
    const held = Array.from({ length: LIMITS.sessionRequestsPerUser - 1 }, () => enterSessionRequest(w.users.ada.id, 0));
    try {
      const last = toSession("GET");
      await expect.poll(() => waiting.length).toBe(1);
      const over = await toSession("GET");
      expect(over.status).toBe(429);
      expect(await message(over)).toBe(
        `You have ${LIMITS.sessionRequestsPerUser} requests to your sessions in progress, and at most ${LIMITS.sessionRequestsPerUser} may run at once for one person; try again in a moment`,
      );
      await answerAll();
      expect((await last).status).toBe(200);
    } finally {
      held.forEach((leave) => leave());
    }
    // Each left its place: the whole bound is free again.
    Array.from({ length: LIMITS.sessionRequestsPerUser }, () => enterSessionRequest(w.users.ada.id, 0)).forEach((leave) =>
      leave(),
    );
  });
});
