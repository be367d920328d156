import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  claimWebhooks,
  deliverWebhooks,
  listNotifications,
  sendClaimed,
  setWebhook,
  updateUser,
  WEBHOOK_PER_USER,
  type Actor,
} from "@tranche/domain";
import { makeWorld, type World } from "./fixtures";

// Webhook delivery rounds over a real Postgres: who gets a round's places, and how a round claims its
// notifications (committed before it POSTs, never twice at once, taken again when its round died).

let w: World;
const servers: Server[] = [];

beforeAll(async () => {
  w = await makeWorld("api_webhooks");
});
afterAll(async () => {
  await w?.db.drop();
});
beforeEach(async () => {
  // The receivers here listen on 127.0.0.1: a lab whose hook receivers are internal says so.
  process.env.TRANCHE_WEBHOOK_ALLOW_PRIVATE = "1";
  await w.db.prisma.notification.deleteMany();
});
afterEach(async () => {
  delete process.env.TRANCHE_WEBHOOK_ALLOW_PRIVATE;
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((ok) => s.close(ok));
  }
});

/** A receiver on 127.0.0.1 that hands each request to `handle`; answers its URL. */
async function receiver(handle: (req: IncomingMessage, res: ServerResponse, body: { id: string }) => void): Promise<string> {
  const s = createServer((req, res) => {
    let text = "";
    req.on("data", (c: Buffer) => (text += c.toString()));
    req.on("end", () => handle(req, res, JSON.parse(text) as { id: string }));
  });
  servers.push(s);
  await new Promise<void>((ok) => s.listen(0, "127.0.0.1", ok));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/hook`;
}

/** `count` notifications of `who` waiting for their webhook, oldest first; answers their ids. */
async function pending(who: Actor, count: number): Promise<bigint[]> {
  const ids: bigint[] = [];
  for (let i = 0; i < count; i += 100) {
    const made = await w.db.prisma.notification.createManyAndReturn({
      data: Array.from({ length: Math.min(100, count - i) }, (_, k) => ({
        userId: who.id,
        kind: "FAILED",
        title: `Job ${i + k} failed`,
        sentence: "Exit code 1.",
        webhookState: "PENDING",
      })),
      select: { id: true },
    });
    ids.push(...made.map((m) => m.id).sort((a, b) => (a < b ? -1 : 1)));
  }
  return ids;
}

const quiet = { warn: () => undefined };

describe("webhook delivery rounds", () => {
  it("one user's backlog at a receiver that never answers does not hold another user's notification", async () => {
    const blackHole = await receiver(() => undefined); // takes the request, never answers
    const got: string[] = [];
    const working = await receiver((_req, res, body) => {
      got.push(body.id);
      res.writeHead(204).end();
    });
    await setWebhook(w.db.prisma, w.users.ada, blackHole);
    await setWebhook(w.db.prisma, w.users.maya, working);
    const adas = await pending(w.users.ada, 200);
    const [mayas] = await pending(w.users.maya, 1);

    const r = await deliverWebhooks(w.db.prisma, quiet, { timeoutMs: 300 });
    expect(got).toEqual([String(mayas)]);
    expect((await w.db.prisma.notification.findUniqueOrThrow({ where: { id: mayas! } })).webhookState).toBe("SENT");
    expect(r).toEqual({ sent: 1, failed: WEBHOOK_PER_USER });
    // Ada's oldest few had their try; the rest wait for later rounds.
    const tried = await w.db.prisma.notification.findMany({ where: { userId: w.users.ada.id, webhookAttempts: 1 } });
    expect(tried.map((n) => n.id).sort((a, b) => (a < b ? -1 : 1))).toEqual(adas.slice(0, WEBHOOK_PER_USER));
  });

  it("a round holds no transaction or row lock while it POSTs, and another round leaves its claims alone", async () => {
    let answer: (() => void) | null = null;
    let posts = 0;
    const url = await receiver((_req, res) => {
      posts++;
      answer = () => res.writeHead(200).end();
    });
    await setWebhook(w.db.prisma, w.users.ada, url);
    const [id] = await pending(w.users.ada, 1);

    const round = deliverWebhooks(w.db.prisma, quiet, { timeoutMs: 5_000 });
    for (let i = 0; i < 100 && answer === null; i++) await new Promise((ok) => setTimeout(ok, 20));
    expect(answer).not.toBeNull();
    // The POST is waiting for its answer: the row is claimed, committed, and not locked.
    const row = await w.db.prisma.notification.findUniqueOrThrow({ where: { id: id! } });
    expect(row.webhookClaimedAt).not.toBeNull();
    const locked = await w.db.prisma.$transaction(
      (tx) => tx.$queryRaw<{ id: bigint }[]>`SELECT id FROM notification WHERE id = ${id} FOR UPDATE NOWAIT`,
    );
    expect(locked).toHaveLength(1);
    // A second round meanwhile (another worker) does not send it again.
    expect(await deliverWebhooks(w.db.prisma, quiet, { timeoutMs: 5_000 })).toEqual({ sent: 0, failed: 0 });
    answer!();
    expect(await round).toEqual({ sent: 1, failed: 0 });
    expect(posts).toBe(1);
    const done = await w.db.prisma.notification.findUniqueOrThrow({ where: { id: id! } });
    expect(done).toMatchObject({ webhookState: "SENT", webhookAttempts: 1, webhookClaimedAt: null });
  });

  it("two rounds at once send each notification exactly once", async () => {
    const got: string[] = [];
    const url = await receiver((_req, res, body) => {
      got.push(body.id);
      setTimeout(() => res.writeHead(200).end(), 50);
    });
    const who = [w.users.ada, w.users.maya, w.users.victor, w.users.omar];
    const ids: bigint[] = [];
    for (const u of who) {
      await setWebhook(w.db.prisma, u, url);
      ids.push(...(await pending(u, WEBHOOK_PER_USER)));
    }
    const rounds = await Promise.all([1, 2, 3].map(() => deliverWebhooks(w.db.prisma, quiet, { timeoutMs: 5_000 })));
    expect(rounds.reduce((n, r) => n + r.sent, 0)).toBe(ids.length);
    expect([...got].sort()).toEqual(ids.map(String).sort());
    expect(await w.db.prisma.notification.count({ where: { webhookState: "SENT" } })).toBe(ids.length);
  });

  it("a round never takes notifications another round is claiming, whether it skips them or waits for them", async () => {
    const got: string[] = [];
    const url = await receiver((_req, res, body) => {
      got.push(body.id);
      res.writeHead(200).end();
    });
    await setWebhook(w.db.prisma, w.users.ada, url);
    const ids = await pending(w.users.ada, 3);
    let second: Promise<{ sent: number; failed: number }> | null = null;
    // Another round's claim, held open: its rows locked, then marked claimed and committed.
    await w.db.prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT id FROM notification WHERE "webhookState" = 'PENDING' FOR UPDATE`;
      second = deliverWebhooks(w.db.prisma, quiet, { timeoutMs: 1_000 });
      await new Promise((ok) => setTimeout(ok, 300));
      await tx.$executeRaw`UPDATE notification SET "webhookClaimedAt" = now() WHERE "webhookState" = 'PENDING'`;
    });
    expect(await second!).toEqual({ sent: 0, failed: 0 });
    expect(got).toEqual([]);
    expect(await w.db.prisma.notification.count({ where: { id: { in: ids }, webhookState: "PENDING" } })).toBe(3);
  });

  it("a claim from a round that died is taken again once it is old; a fresh one is left to its round", async () => {
    const got: string[] = [];
    const url = await receiver((_req, res, body) => {
      got.push(body.id);
      res.writeHead(200).end();
    });
    await setWebhook(w.db.prisma, w.users.ada, url);
    const [stale, fresh] = await pending(w.users.ada, 2);
    await w.db.prisma.notification.update({
      where: { id: stale! },
      data: { webhookClaimedAt: new Date(Date.now() - 3_600_000) },
    });
    await w.db.prisma.notification.update({ where: { id: fresh! }, data: { webhookClaimedAt: new Date() } });

    expect(await deliverWebhooks(w.db.prisma, quiet, { timeoutMs: 1_000 })).toEqual({ sent: 1, failed: 0 });
    expect(got).toEqual([String(stale)]);
    expect((await w.db.prisma.notification.findUniqueOrThrow({ where: { id: fresh! } })).webhookState).toBe("PENDING");
  });

  it("a failed try is retried in a later round, and after WEBHOOK_ATTEMPTS tries the notification is FAILED", async () => {
    let calls = 0;
    const url = await receiver((_req, res) => {
      calls++;
      res.writeHead(500).end();
    });
    await setWebhook(w.db.prisma, w.users.ada, url);
    const [id] = await pending(w.users.ada, 1);
    const warnings: string[] = [];
    for (let round = 0; round < 4; round++)
      await deliverWebhooks(w.db.prisma, { warn: (m) => warnings.push(m) }, { timeoutMs: 1_000 });
    expect(calls).toBe(3);
    const n = await w.db.prisma.notification.findUniqueOrThrow({ where: { id: id! } });
    expect(n).toMatchObject({ webhookState: "FAILED", webhookAttempts: 3, webhookClaimedAt: null });
    expect(warnings.filter((m) => /HTTP 500 \(will retry\)/.test(m))).toHaveLength(2);
    expect(warnings.filter((m) => /HTTP 500 \(giving up\)/.test(m))).toHaveLength(1);
  });

  it("a disabled account's notifications are not POSTed, stay in its inbox, and say why once it is enabled again", async () => {
    const got: string[] = [];
    const url = await receiver((_req, res, body) => {
      got.push(body.id);
      res.writeHead(200).end();
    });
    await setWebhook(w.db.prisma, w.users.omar, url);
    await setWebhook(w.db.prisma, w.users.maya, url);
    const [before] = await pending(w.users.omar, 1);
    const [mayas] = await pending(w.users.maya, 1);
    await updateUser(w.db.prisma, w.users.admin, w.users.omar.id, { disabled: true });
    try {
      const [after] = await pending(w.users.omar, 1); // a job of theirs that ends after they were disabled
      expect(await deliverWebhooks(w.db.prisma, quiet, { timeoutMs: 1_000 })).toEqual({ sent: 1, failed: 0 });
      expect(got).toEqual([String(mayas)]);
      const omars = await w.db.prisma.notification.findMany({ where: { id: { in: [before!, after!] } } });
      expect(omars.map((n) => n.webhookState)).toEqual(["ACCOUNT_DISABLED", "ACCOUNT_DISABLED"]);
      // Enabled again: nothing is sent late, and the inbox says why.
      await updateUser(w.db.prisma, w.users.admin, w.users.omar.id, { disabled: false });
      expect(await deliverWebhooks(w.db.prisma, quiet, { timeoutMs: 1_000 })).toEqual({ sent: 0, failed: 0 });
      const inbox = await listNotifications(w.db.prisma, w.users.omar);
      expect(inbox.notifications.map((n) => n.webhookNotSent)).toEqual([
        "Not sent to your webhook: your account was disabled at the time.",
        "Not sent to your webhook: your account was disabled at the time.",
      ]);
    } finally {
      await w.db.prisma.user.update({ where: { id: w.users.omar.id }, data: { disabledAt: null } });
    }
  });
});

// A round claims, then sends: what the user did to their webhook in between is what the POST obeys.
describe("a claimed notification goes to the webhook as it is when it is sent", () => {
  const sink = async () => {
    const got: string[] = [];
    const url = await receiver((_req, res, body) => {
      got.push(body.id);
      res.writeHead(204).end();
    });
    return { got, url };
  };
  const stateOf = async (id: bigint) => (await w.db.prisma.notification.findUniqueOrThrow({ where: { id } })).webhookState;

  it("a webhook moved after the claim gets the POST at its new address, the old one nothing", async () => {
    const old = await sink();
    const moved = await sink();
    await setWebhook(w.db.prisma, w.users.ada, old.url);
    const [id] = await pending(w.users.ada, 1);
    const claimed = await claimWebhooks(w.db.prisma, 1_000);
    await setWebhook(w.db.prisma, w.users.ada, moved.url);
    expect(await sendClaimed(w.db.prisma, quiet, claimed, 1_000)).toEqual({ sent: 1, failed: 0 });
    expect([old.got, moved.got]).toEqual([[], [String(id)]]);
    expect(await stateOf(id!)).toBe("SENT");
  });

  it("a webhook removed after the claim gets nothing, and the notification is not tried again", async () => {
    const hook = await sink();
    await setWebhook(w.db.prisma, w.users.ada, hook.url);
    const [id] = await pending(w.users.ada, 1);
    const claimed = await claimWebhooks(w.db.prisma, 1_000);
    await setWebhook(w.db.prisma, w.users.ada, null);
    expect(await sendClaimed(w.db.prisma, quiet, claimed, 1_000)).toEqual({ sent: 0, failed: 1 });
    expect([hook.got, await stateOf(id!)]).toEqual([[], "FAILED"]);
  });

  it("an account disabled after the claim gets nothing, and the notification is marked as not sent for that", async () => {
    const hook = await sink();
    await setWebhook(w.db.prisma, w.users.omar, hook.url);
    const [id] = await pending(w.users.omar, 1);
    const claimed = await claimWebhooks(w.db.prisma, 1_000);
    await updateUser(w.db.prisma, w.users.admin, w.users.omar.id, { disabled: true });
    try {
      expect(await sendClaimed(w.db.prisma, quiet, claimed, 1_000)).toEqual({ sent: 0, failed: 1 });
      expect([hook.got, await stateOf(id!)]).toEqual([[], "ACCOUNT_DISABLED"]);
    } finally {
      await w.db.prisma.user.update({ where: { id: w.users.omar.id }, data: { disabledAt: null } });
    }
  });
});
