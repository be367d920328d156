import type { PrismaClient, Tx } from "@tranche/db";
import {
  formatPpm,
  issuesSentence,
  labFile,
  labFileEmail,
  labFileNode,
  labFileUser,
  labShareToPpm,
  type LabChangeGroup,
  type LabFileUser,
  type LabImportResult,
} from "@tranche/contracts";
import type { z } from "zod";
import { requireRole, type Actor } from "../auth/actor";
import { setAllocationsIn } from "../budgets/set-allocations";
import { DomainError } from "../errors";
import { forgetCachedNames } from "../jobs/submit-job";
import { writeAudit } from "./audit";
import { refusedShare, shareAsAllocations } from "./clusters";
import { addBudgetMemberIn, addTreeManagerIn } from "./people";
import { createTreeNodeIn, lockTree } from "./tree-admin";
import { createUserIn, updateUserIn } from "./users";

/**
 * A lab file applied in one transaction (admins): users created or matched by e-mail, tree nodes
 * created or matched by path, then members, managers and shares. Every step is the single call's own
 * use-case (createUserIn, createTreeNodeIn, ...), so every rule is the same code. Each step runs in a
 * savepoint: a refused step is noted with its place in the file and the next one goes on, so one
 * answer names every problem; any problem, or a dry run, rolls the whole transaction back. Nothing
 * that the file does not name is removed or changed.
 */

type Problem = { path: string; message: string };
type Node = { at: number; path: string; managers: string[]; members: string[]; shares: { cluster: string; ppm: number }[] };

class DryRun extends Error {
  constructor(readonly result: LabImportResult) {
    super("dry run");
  }
}

/** A field's issues as places in the file: users[2].email. */
const zodProblems = (where: string, e: z.ZodError): Problem[] =>
  e.issues.map((i) => ({
    path: [where, ...i.path.map(String)].join("."),
    message: i.code === "unrecognized_keys" ? `unknown field${i.keys.length === 1 ? "" : "s"} ${i.keys.join(", ")}` : i.message,
  }));

/** The single calls' messages start with their field ("email: ..."); the place in the file replaces it. */
const withoutField = (e: DomainError) =>
  e.field && e.message.startsWith(`${e.field}: `) ? e.message.slice(e.field.length + 2) : e.message;

function readFile(file: unknown, problems: Problem[]) {
  const top = labFile.safeParse(file);
  if (!top.success) {
    problems.push(...zodProblems("file", top.error).map((p) => ({ ...p, path: p.path.replace(/^file\.?/, "") || "file" })));
    return { users: [] as (LabFileUser & { at: number })[], nodes: [] as Node[] };
  }
  const users: (LabFileUser & { at: number })[] = [];
  const emails = new Map<string, number>();
  top.data.users.forEach((raw, at) => {
    const u = labFileUser.safeParse(raw);
    if (!u.success) return problems.push(...zodProblems(`users[${at}]`, u.error));
    const first = emails.get(u.data.email);
    if (first !== undefined)
      return problems.push({ path: `users[${at}].email`, message: `${u.data.email} is listed twice (also users[${first}])` });
    emails.set(u.data.email, at);
    users.push({ ...u.data, at });
  });
  const nodes: Node[] = [];
  const paths = new Map<string, number>();
  top.data.tree.forEach((raw, at) => {
    const n = labFileNode.safeParse(raw);
    if (!n.success) return problems.push(...zodProblems(`tree[${at}]`, n.error));
    const first = paths.get(n.data.path);
    if (first !== undefined)
      return problems.push({ path: `tree[${at}].path`, message: `${n.data.path} is listed twice (also tree[${first}])` });
    paths.set(n.data.path, at);
    const people = (field: "managers" | "members") =>
      n.data[field].flatMap((raw, i) => {
        const e = labFileEmail.safeParse(raw);
        if (e.success) return [e.data];
        problems.push(...zodProblems(`tree[${at}].${field}[${i}]`, e.error));
        return [];
      });
    const shares = Object.entries(n.data.shares).flatMap(([cluster, value]) => {
      const ppm = labShareToPpm(value);
      if (typeof ppm === "number") return [{ cluster, ppm }];
      problems.push({ path: `tree[${at}].shares.${cluster}`, message: ppm });
      return [];
    });
    nodes.push({ at, path: n.data.path, managers: people("managers"), members: people("members"), shares });
  });
  return { users, nodes };
}

/** POST /admin/import and `tranche admin import`: the whole file, or (any problem) nothing. */
export async function importLab(
  prisma: PrismaClient,
  actor: Actor,
  file: unknown,
  opts: { dryRun: boolean; origin: string },
): Promise<LabImportResult> {
  requireRole(actor, ["ADMIN"], "import a lab file");
  const problems: Problem[] = [];
  const { users, nodes } = readFile(file, problems);
  const r: LabImportResult = {
    dryRun: opts.dryRun,
    usersCreated: 0,
    usersChanged: 0,
    nodesCreated: 0,
    membersAdded: 0,
    managersAdded: 0,
    sharesChanged: 0,
    changes: [],
    grouped: { users: [], tree: [], managers: [], members: [], shares: [] },
    passwordLinks: [],
  };
  try {
    await prisma.$transaction(
      async (tx) => {
        await lockTree(tx);
        const step = stepper(tx, problems);
        for (const u of users) await importUser(tx, actor, u, opts.origin, r, step);
        // Parents before children, whatever the file's order.
        const byDepth = [...nodes].sort((a, b) => a.path.split("/").length - b.path.split("/").length || a.at - b.at);
        for (const n of byDepth) await importNode(tx, actor, n, r, step);
        for (const n of nodes) await importPeople(tx, actor, n, r, step);
        await importShares(tx, actor, nodes, r, step);
        if (problems.length > 0) throw refused(problems);
        if (opts.dryRun) throw new DryRun(r);
        if (r.changes.length > 0)
          await writeAudit(
            tx,
            actor,
            "lab.import",
            { type: "lab_import", id: actor.id, label: "lab file" },
            {
              usersCreated: r.usersCreated,
              usersChanged: r.usersChanged,
              nodesCreated: r.nodesCreated,
              membersAdded: r.membersAdded,
              managersAdded: r.managersAdded,
              sharesChanged: r.sharesChanged,
            },
          );
      },
      { timeout: 120_000, maxWait: 15_000 },
    );
  } catch (e) {
    if (e instanceof DryRun) return { ...e.result, passwordLinks: [] };
    throw e;
  }
  if (problems.length > 0) throw refused(problems);
  if (r.nodesCreated > 0) forgetCachedNames();
  return r;
}

function refused(problems: Problem[]): DomainError {
  const head = `The file has ${problems.length} problem${problems.length === 1 ? "" : "s"}; nothing was changed`;
  return new DomainError("BAD_INPUT", `${head}: ${issuesSentence(problems)}`, undefined, problems);
}

/** One change, in the file's order and in its group. */
function note(r: LabImportResult, group: LabChangeGroup, text: string): void {
  r.changes.push(text);
  r.grouped[group].push(text);
}

type Step = <T>(place: string, run: () => Promise<T>) => Promise<T | undefined>;

/** Runs one single call in a savepoint; a refusal is noted at its place and rolled back alone. */
function stepper(tx: Tx, problems: Problem[]): Step {
  return async (place, run) => {
    await tx.$executeRawUnsafe("SAVEPOINT lab_import_step");
    try {
      const out = await run();
      await tx.$executeRawUnsafe("RELEASE SAVEPOINT lab_import_step");
      return out;
    } catch (e) {
      await tx.$executeRawUnsafe("ROLLBACK TO SAVEPOINT lab_import_step");
      if (!(e instanceof DomainError)) throw e;
      problems.push({ path: place, message: withoutField(e) });
      return undefined;
    }
  };
}

async function importUser(tx: Tx, actor: Actor, u: LabFileUser & { at: number }, origin: string, r: LabImportResult, step: Step) {
  const existing = await tx.user.findUnique({ where: { email: u.email } });
  if (!existing) {
    const role = u.role ?? "RESEARCHER";
    const made = await step(`users[${u.at}]`, () => createUserIn(tx, actor, { email: u.email, name: u.name, role }, origin));
    if (!made) return;
    r.usersCreated++;
    note(r, "users", `create user ${u.email} (${role.toLowerCase()})`);
    r.passwordLinks.push({ email: u.email, setPasswordUrl: made.setPasswordUrl, expiresAt: made.expiresAt });
    return;
  }
  const role = u.role ?? existing.role;
  if (existing.name === u.name && existing.role === role) return;
  const changed = await step(`users[${u.at}]`, () =>
    updateUserIn(tx, actor, existing.id, { name: u.name, ...(u.role ? { role: u.role } : {}) }),
  );
  if (!changed) return;
  r.usersChanged++;
  note(r, "users", `change user ${u.email} (${role.toLowerCase()}, ${u.name})`);
}

async function importNode(tx: Tx, actor: Actor, n: Node, r: LabImportResult, step: Step) {
  const live = await tx.budgetTreeNode.findFirst({ where: { path: n.path, archivedAt: null }, select: { id: true } });
  if (live) return;
  const cut = n.path.lastIndexOf("/");
  const input = cut < 0 ? { name: n.path } : { parent: n.path.slice(0, cut), name: n.path.slice(cut + 1) };
  if (!(await step(`tree[${n.at}].path`, () => createTreeNodeIn(tx, actor, input)))) return;
  r.nodesCreated++;
  note(r, "tree", `create tree node ${n.path}`);
}

async function importPeople(tx: Tx, actor: Actor, n: Node, r: LabImportResult, step: Step) {
  const node = await tx.budgetTreeNode.findFirst({ where: { path: n.path, archivedAt: null }, select: { id: true } });
  for (const [i, email] of n.members.entries()) {
    const user = await tx.user.findUnique({ where: { email }, select: { id: true } });
    if (
      node &&
      user &&
      (await tx.budgetMember.findUnique({ where: { budgetId_userId: { budgetId: node.id, userId: user.id } } }))
    )
      continue;
    if (!(await step(`tree[${n.at}].members[${i}]`, () => addBudgetMemberIn(tx, actor, n.path, email)))) continue;
    r.membersAdded++;
    note(r, "members", `add ${email} as a member of ${n.path}`);
  }
  for (const [i, email] of n.managers.entries()) {
    const user = await tx.user.findUnique({ where: { email }, select: { id: true } });
    if (
      node &&
      user &&
      (await tx.budgetManager.findUnique({ where: { treeNodeId_userId: { treeNodeId: node.id, userId: user.id } } }))
    )
      continue;
    if (!(await step(`tree[${n.at}].managers[${i}]`, () => addTreeManagerIn(tx, actor, n.path, email)))) continue;
    r.managersAdded++;
    note(r, "managers", `add ${email} as a manager of ${n.path}`);
  }
}

/**
 * Shares go in one change per parent and cluster, as the budgets page sends them, so siblings may trade
 * shares in any order; a refused change is reported at the last of its entries in the file.
 */
async function importShares(tx: Tx, actor: Actor, nodes: Node[], r: LabImportResult, step: Step) {
  const groups = new Map<
    string,
    { cluster: string; parentId: string; allocations: { treeNodeId: string; ppm: number }[]; last: string }
  >();
  for (const n of nodes)
    for (const s of n.shares) {
      const place = `tree[${n.at}].shares.${s.cluster}`;
      const one = await step(place, () =>
        shareAsAllocations(tx, n.path, { cluster: s.cluster, share: s.ppm / 1_000_000 }).catch(refusedShare),
      );
      if (!one) continue;
      const key = `${one.change.parentId} ${s.cluster}`;
      const g = groups.get(key) ?? { cluster: s.cluster, parentId: one.change.parentId, allocations: [], last: place };
      g.allocations.push(...one.change.allocations);
      g.last = place;
      groups.set(key, g);
    }
  for (const g of groups.values()) {
    const done = await step(g.last, () =>
      setAllocationsIn(tx, actor, { cluster: g.cluster, parentId: g.parentId, allocations: g.allocations }).catch(refusedShare),
    );
    for (const c of done?.changed ?? []) {
      r.sharesChanged++;
      note(r, "shares", `set ${c.path}'s share on ${g.cluster} to ${formatPpm(c.toPpm)} (was ${formatPpm(c.fromPpm)})`);
    }
  }
}
