// A person's signed-in browsers (tRPC signIns.*) against a real Postgres: each sees and ends only their
// own, "everywhere else" keeps the one in use, and only admins see or end another user's, by role
// before the input is read. Another user's session id is never accepted from a non-admin.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createCaller } from "../src";
import { makeWorld, type World } from "./fixtures";

let w: World;
type Who = "ada" | "maya" | "victor" | "omar" | "admin";
const as = (who: Who, sessionId: string | null = null) =>
  createCaller({ prisma: w.db.prisma, user: w.users[who], sessionId }).signIns;
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
const SAFARI =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15";
let n = 0;

async function session(who: Who, userAgent = FIREFOX): Promise<string> {
  const s = await w.db.prisma.session.create({
    data: {
      token: `hash-${++n}`,
      userId: w.users[who].id,
      expiresAt: new Date(Date.now() + 86_400_000),
      ipAddress: `10.0.0.${n}`,
      userAgent,
    },
  });
  return s.id;
}
const idsOf = async (who: Who) =>
  (await w.db.prisma.session.findMany({ where: { userId: w.users[who].id }, select: { id: true } })).map((s) => s.id).sort();

beforeAll(async () => {
  w = await makeWorld("api_sign_in_sessions");
});
beforeEach(async () => {
  await w.db.prisma.session.deleteMany({});
});
afterAll(async () => {
  await w?.db.drop();
});

describe("one's own signed-in browsers", () => {
  it("lists only the caller's, in words, marking this device", async () => {
    const here = await session("ada", FIREFOX);
    await session("ada", SAFARI);
    await session("victor");
    const list = await as("ada", here).mine();
    expect(list.map((s) => s.device).sort()).toEqual(["Firefox on Linux", "Safari on macOS"]);
    expect(list.filter((s) => s.current).map((s) => s.id)).toEqual([here]);
    expect(list.every((s) => s.address?.startsWith("10.0.0."))).toBe(true);
  });

  it("ends one of them, leaving the others signed in", async () => {
    const here = await session("ada");
    const laptop = await session("ada", SAFARI);
    const third = await session("ada");
    expect(await as("ada", here).end({ id: laptop })).toEqual({ ended: 1 });
    expect(await idsOf("ada")).toEqual([here, third].sort());
  });

  it("never ends another user's session from a non-admin: not found, nothing changes", async () => {
    const here = await session("victor");
    const victors = await session("victor");
    const adas = await session("ada");
    for (const who of ["ada", "maya", "omar"] as const)
      await expect(as(who).end({ id: victors })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await idsOf("victor")).toEqual([here, victors].sort());
    expect(await idsOf("ada")).toEqual([adas]);
  });

  it("signs out everywhere else, keeping this device and other people's sessions", async () => {
    const here = await session("maya");
    await session("maya");
    await session("maya", SAFARI);
    const adas = await session("ada");
    expect(await as("maya", here).endOthers()).toEqual({ ended: 2 });
    expect(await idsOf("maya")).toEqual([here]);
    expect(await idsOf("ada")).toEqual([adas]);
  });

  it("refuses a malformed id by name and a signed-out caller", async () => {
    await expect(as("ada").end({ id: "no spaces; please" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("id must be a signed-in session's id"),
    });
    const out = createCaller({ prisma: w.db.prisma, user: null }).signIns;
    await expect(out.mine()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await expect(out.endOthers()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });
});

describe("another user's signed-in browsers", () => {
  it("are refused to a researcher, managers and an operator before the input is read", async () => {
    const victors = await session("victor");
    for (const who of ["ada", "maya", "omar"] as const) {
      await expect(as(who).ofUser({ userId: w.users.victor.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(as(who).endOfUser({ userId: w.users.victor.id, id: victors })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(as(who).endAllOfUser({ userId: w.users.victor.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(as(who).ofUser({ nonsense: 1 } as never)).rejects.toMatchObject({ code: "FORBIDDEN" });
    }
    expect(await idsOf("victor")).toEqual([victors]);
  });

  it("are listed and ended by an admin, one or all, each in the audit log", async () => {
    const mine = await session("admin");
    const a = await session("victor");
    const b = await session("victor", SAFARI);
    const admin = as("admin", mine);
    expect((await admin.ofUser({ userId: w.users.victor.id })).map((s) => s.id).sort()).toEqual([a, b].sort());
    // A session id of someone else than the user named is not that user's: not found.
    await expect(admin.endOfUser({ userId: w.users.victor.id, id: mine })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await admin.endOfUser({ userId: w.users.victor.id, id: a });
    expect(await idsOf("victor")).toEqual([b]);
    expect(await admin.endAllOfUser({ userId: w.users.victor.id })).toEqual({ ended: 1 });
    expect(await idsOf("victor")).toEqual([]);
    expect(await idsOf("admin")).toEqual([mine]);
    const audit = await w.db.prisma.auditLog.findMany({ where: { action: "user.end-sessions", targetId: w.users.victor.id } });
    expect(audit.map((r) => (r.details as { sessions: number }).sessions)).toEqual([1, 1]);
  });
});
