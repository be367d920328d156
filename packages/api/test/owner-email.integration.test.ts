import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@tranche/domain";
import { callRest, goodJob, makeWorld, type World } from "./fixtures";

// A job's owner's sign-in e-mail reaches those who may read its command (its owner, admins, operators,
// managers of its budget's subtree); everyone else sees the owner's display name only. Job ids are
// sequential, so any gap here hands a signed-in person every user's e-mail.

type Who = "ada" | "maya" | "victor" | "omar" | "admin" | "other";
const ENTITLED: Who[] = ["ada", "maya", "omar", "admin"];
const NOT_ENTITLED: Who[] = ["other", "victor"]; // a researcher elsewhere; a manager of lab/vision

let w: World;
let jobId: number;
const ADA = "ada@tranche.example";
beforeAll(async () => {
  w = await makeWorld("api_owner_email");
  jobId = (await w.caller("ada").job.submit(goodJob)).id;
});
afterAll(async () => {
  await w?.db.drop();
});

const token = async (who: Who) => (await createApiToken(w.db.prisma, w.users[who], { name: "t" })).token;

describe("a job's owner's e-mail", () => {
  it("REST GET /jobs/:id shows it only to those who may read the job", async () => {
    for (const who of [...ENTITLED, ...NOT_ENTITLED]) {
      const r = await callRest(w, "GET", `/jobs/${jobId}`, { token: await token(who) });
      expect(r.status).toBe(200);
      expect(r.body.job.user.name).toBe("Ada Researcher");
      expect([who, r.body.job.user.email]).toEqual([who, ENTITLED.includes(who) ? ADA : null]);
    }
  });

  it("REST GET /jobs/:id/events shows it only to those who may read the job", async () => {
    for (const who of [...ENTITLED, ...NOT_ENTITLED]) {
      const r = await callRest(w, "GET", `/jobs/${jobId}/events`, { token: await token(who) });
      expect(r.status).toBe(200);
      expect([who, r.body.job.user.email]).toEqual([who, ENTITLED.includes(who) ? ADA : null]);
      if (!ENTITLED.includes(who)) expect(JSON.stringify(r.body)).not.toContain(ADA);
    }
  });

  it("tRPC job.get, job.detail and job.list show it only to those who may read the job", async () => {
    for (const who of [...ENTITLED, ...NOT_ENTITLED]) {
      const c = w.caller(who);
      const want = [who, ENTITLED.includes(who) ? ADA : null];
      expect([who, (await c.job.get({ id: jobId })).user.email]).toEqual(want);
      const detail = await c.job.detail({ id: jobId });
      expect([who, detail.job.user.email]).toEqual(want);
      if (who !== "other" && who !== "ada") {
        const listed = (await c.job.list({ scope: "all" })).find((j) => j.id === jobId)!;
        expect([who, listed.user.email]).toEqual(want);
      }
    }
  });

  it("the queue's filter matches it only on jobs whose owner's e-mail the reader may see", async () => {
    const found = async (who: Who) =>
      (await w.caller(who).queue.page({ cluster: "h100", offset: 0, limit: 100, filter: "ada@tranche" })).rows.some(
        (r) => r.id === jobId,
      );
    for (const who of ENTITLED) expect([who, await found(who)]).toEqual([who, true]);
    for (const who of NOT_ENTITLED) expect([who, await found(who)]).toEqual([who, false]);
    // The name still finds it for everyone.
    const byName = await w.caller("other").queue.page({ cluster: "h100", offset: 0, limit: 100, filter: "Ada Res" });
    expect(byName.rows.some((r) => r.id === jobId)).toBe(true);
  });
});
