// Removing a budget's member stops their new submissions only: the jobs of theirs already waiting or
// running there go on, charged to the budget. The answer counts them, so a manager who removes someone
// who left the team is not told the budget is rid of them while their queue still runs on it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removedMemberText } from "@tranche/contracts";
import { createApiToken } from "@tranche/domain";
import { callRest, goodJob, makeWorld, type World } from "./fixtures";

let w: World;
let maya = "";
beforeAll(async () => {
  w = await makeWorld("api_member_removal");
  maya = (await createApiToken(w.db.prisma, w.users.maya, { name: "test" })).token;
});
afterAll(async () => {
  await w?.db.drop();
});

describe("DELETE /api/v1/budgets/{path}/members", () => {
  it("counts the removed member's jobs that still wait or run there, and the sentence says they go on", async () => {
    const ada = (await createApiToken(w.db.prisma, w.users.ada, { name: "test" })).token;
    for (const name of ["first", "second"])
      expect((await callRest(w, "POST", "/jobs", { token: ada, body: { ...goodJob, name } })).status).toBe(201);
    const r = await callRest(w, "DELETE", `/budgets/lab%2Flanguage%2Fpretraining/members?email=${w.users.ada.email}`, {
      token: maya,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.member).toEqual({ budget: "lab/language/pretraining", email: w.users.ada.email, jobsLeft: 2 });
    expect(await w.db.prisma.job.count({ where: { userId: w.users.ada.id, state: "PENDING" } })).toBe(2);
    expect(removedMemberText(w.users.ada.email, "lab/language/pretraining", 2)).toBe(
      "ada@tranche.example may no longer submit to lab/language/pretraining. 2 jobs of theirs are still waiting or running there and stay charged to it; cancel them if they should not run.",
    );
  });

  it("says nothing of jobs when none are left", () => {
    expect(removedMemberText("kim@lab.example", "lab/vision/video", 0)).toBe(
      "kim@lab.example may no longer submit to lab/vision/video.",
    );
  });
});
