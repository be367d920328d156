// The single sign-on mapping names budgets by path: when an admin renames or moves a tree node, every rule
// naming a budget in its subtree must follow, so newcomers still land in the budget the admin meant and
// never in another one that later takes the old name.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyOidcRules, createOidcRule, createTreeNode, updateTreeNode } from "@tranche/domain";
import { makeWorld, type World } from "./fixtures";

let w: World;
beforeAll(async () => {
  w = await makeWorld("api_oidc_rules_tree_paths");
});
afterAll(async () => {
  await w?.db.drop();
});

const rulePaths = async (value: string) => (await w.db.prisma.oidcRoleRule.findFirstOrThrow({ where: { value } })).budgetPaths;

async function newcomerBudgets(email: string, groups: string[]): Promise<string[]> {
  const u = await w.db.prisma.user.create({ data: { email, name: email.split("@")[0]! } });
  await applyOidcRules(w.db.prisma, u.id, { email, groups });
  const m = await w.db.prisma.budgetMember.findMany({ where: { userId: u.id }, include: { budget: true } });
  return m.map((x) => x.budget.path).sort();
}

describe("OIDC mapping rules after the tree changes", () => {
  it("follow a rename of a group above their budget, and a move of the budget itself", async () => {
    const admin = w.users.admin;
    await createOidcRule(w.db.prisma, admin, {
      match: "GROUP",
      value: "nlp-eval",
      role: "RESEARCHER",
      budgets: ["lab/language/evaluation", "lab/vision/video"],
    });
    await updateTreeNode(w.db.prisma, admin, "lab/language", { name: "nlp" });
    expect(await rulePaths("nlp-eval")).toEqual(["lab/nlp/evaluation", "lab/vision/video"]);
    await createTreeNode(w.db.prisma, admin, { parent: "lab", name: "shared" });
    await updateTreeNode(w.db.prisma, admin, "lab/nlp/evaluation", { parent: "lab/shared" });
    expect(await rulePaths("nlp-eval")).toEqual(["lab/shared/evaluation", "lab/vision/video"]);
    expect(await newcomerBudgets("eve@uni.example", ["nlp-eval"])).toEqual(["lab/shared/evaluation", "lab/vision/video"]);
  });

  it("do not hand a newcomer the node that later takes a renamed budget's old name", async () => {
    const admin = w.users.admin;
    await createOidcRule(w.db.prisma, admin, {
      match: "GROUP",
      value: "pre",
      role: "RESEARCHER",
      budgets: ["lab/nlp/pretraining"],
    });
    await updateTreeNode(w.db.prisma, admin, "lab/nlp/pretraining", { name: "pretrain-old" });
    await createTreeNode(w.db.prisma, admin, { parent: "lab/nlp", name: "pretraining" });
    expect(await newcomerBudgets("pat@uni.example", ["pre"])).toEqual(["lab/nlp/pretrain-old"]);
  });

  it("make nobody a member of a node that has become a group since the rule named it", async () => {
    const admin = w.users.admin;
    await createOidcRule(w.db.prisma, admin, { match: "GROUP", value: "vid", role: "RESEARCHER", budgets: ["lab/vision/video"] });
    await w.db.prisma.budgetMember.deleteMany({ where: { budget: { path: "lab/vision/video" } } });
    await createTreeNode(w.db.prisma, admin, { parent: "lab/vision/video", name: "tracking" });
    expect(await newcomerBudgets("lou@uni.example", ["vid"])).toEqual([]);
  });
});
