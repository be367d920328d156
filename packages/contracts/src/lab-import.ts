import { z } from "zod";
import { personName, ROLE_NAMES, treeNodeName, treeNodePersonInput, treePath } from "./admin";
import { parsePercentToPpm, PPM } from "./budget";
import { strictObject, text, typeError } from "./input";
import { LIMITS } from "./limits";

/**
 * A lab file (docs/admin-guide.md, "Set up a lab from one file"): the users, the tree, its managers,
 * members and shares, applied all at once by `tranche admin import` and `POST /admin/import`. Each
 * entry is read on its own so that every bad one is reported, each naming its place; the rules of the
 * tree itself (names free, shares summing to at most 100%, members only on budgets) are the domain's.
 */

const list = (field: string, max: number) =>
  z
    .array(z.unknown(), { error: typeError(field, `${field} must be a list`) })
    .max(max, `${field} holds more than ${max.toLocaleString("en-US")} entries`)
    .default([]);

export const labFile = strictObject(
  { users: list("users", LIMITS.importUsers), tree: list("tree", LIMITS.importTreeEntries) },
  "a lab file",
);

export const labFileUser = strictObject(
  {
    email: treeNodePersonInput.shape.email,
    name: personName("name"),
    // Left out: a new user is a researcher, an existing one keeps their role (a file is no demotion).
    role: z.enum(ROLE_NAMES, { error: `role must be one of ${ROLE_NAMES.join(", ")}` }).optional(),
  },
  "a user",
);
export type LabFileUser = z.output<typeof labFileUser>;

export const labFileNode = strictObject(
  {
    path: treePath("path").pipe(
      z
        .string()
        .refine((p) => treeNodeName("path").safeParse(p.split("/").at(-1)).success, "path: a name is longer than 64 characters"),
    ),
    managers: list("managers", LIMITS.importPeoplePerEntry),
    members: list("members", LIMITS.importPeoplePerEntry),
    shares: z
      .record(text("shares' cluster names"), z.unknown(), {
        error: typeError("shares", "shares must map cluster names to percentages"),
      })
      .default({}),
  },
  "a tree entry",
);

/** POST /admin/import's query: ?dryRun=true reports what would change and changes nothing. */
export const labImportQuery = strictObject(
  { dryRun: z.boolean({ error: typeError("dryRun", "dryRun must be true or false") }).default(false) },
  "the import's query",
);

/** One e-mail of a members or managers list, as the single calls read it. */
export const labFileEmail = treeNodePersonInput.shape.email;

/** "40%", "12.5%" or 40 -> ppm; a sentence when it is no share of a parent (0% to 100%). */
export function labShareToPpm(value: unknown): number | string {
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? value : null;
  const ppm = text === null ? null : parsePercentToPpm(text);
  if (ppm === null) return "a share is a percentage of the parent's, such as 40% or 12.5%";
  if (ppm > PPM) return "a share cannot exceed 100% of the parent's";
  return ppm;
}

/** What an import changed, or (dry run) would change. Set-password links only when it was applied. */
/** What a lab file changes, in the order an import applies it. */
export const LAB_CHANGE_GROUPS = ["users", "tree", "managers", "members", "shares"] as const;
export type LabChangeGroup = (typeof LAB_CHANGE_GROUPS)[number];

export interface LabImportResult {
  dryRun: boolean;
  usersCreated: number;
  usersChanged: number;
  nodesCreated: number;
  membersAdded: number;
  managersAdded: number;
  sharesChanged: number;
  /** One plain sentence per change, in the order applied. */
  changes: string[];
  /** The same sentences by what they change (the web's lab page lists them so). */
  grouped: Record<LabChangeGroup, string[]>;
  passwordLinks: { email: string; setPasswordUrl: string; expiresAt: string }[];
}

/** "3 users created, 1 user changed, ...": the counts that are not zero, or "nothing to change". */
export function labImportSummary(r: LabImportResult): string {
  const n = (count: number, one: string, many: string, what: string) => `${count} ${count === 1 ? one : many} ${what}`;
  const parts = [
    r.usersCreated && n(r.usersCreated, "user", "users", "created"),
    r.usersChanged && n(r.usersChanged, "user", "users", "changed"),
    r.nodesCreated && n(r.nodesCreated, "tree node", "tree nodes", "created"),
    r.membersAdded && n(r.membersAdded, "member", "members", "added"),
    r.managersAdded && n(r.managersAdded, "manager", "managers", "added"),
    r.sharesChanged && n(r.sharesChanged, "share", "shares", "changed"),
  ].filter((x): x is string => !!x);
  return parts.length > 0 ? parts.join(", ") : "nothing to change";
}

/** A lab file as `GET /admin/export` answers it: what `importLab` reads, from the current state. */
export interface LabFile {
  users: { email: string; name: string; role: (typeof ROLE_NAMES)[number] }[];
  tree: { path: string; managers?: string[]; members?: string[]; shares?: Record<string, string> }[];
}

/** `GET /admin/export`'s query: the shares on one cluster only (`--cluster`), else on every cluster. */
export const labExportQuery = strictObject(
  { cluster: text("cluster").trim().min(1, "cluster is empty").max(LIMITS.keyChars).optional() },
  "the export's query",
);

/**
 * A lab file as YAML, one line per user and a few per tree node, for an admin to edit and import again.
 * Every text is written double-quoted as JSON writes it (YAML reads JSON's escapes the same), so a name
 * holding ':' or '#' reads back as it was.
 */
export function labFileYaml(file: LabFile): string {
  const q = (s: string) => JSON.stringify(s);
  const list = (xs: string[]) => `[${xs.map(q).join(", ")}]`;
  const lines = ["users:"];
  if (file.users.length === 0) lines[0] = "users: []";
  for (const u of file.users) lines.push(`  - { email: ${q(u.email)}, name: ${q(u.name)}, role: ${u.role} }`);
  lines.push(file.tree.length === 0 ? "tree: []" : "tree:");
  for (const n of file.tree) {
    lines.push(`  - path: ${q(n.path)}`);
    if (n.managers?.length) lines.push(`    managers: ${list(n.managers)}`);
    if (n.members?.length) lines.push(`    members: ${list(n.members)}`);
    const shares = Object.entries(n.shares ?? {});
    if (shares.length > 0) lines.push(`    shares: { ${shares.map(([c, s]) => `${q(c)}: ${s}`).join(", ")} }`);
  }
  return lines.join("\n") + "\n";
}
