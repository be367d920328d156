import { formatExactDuration } from "@tranche/contracts/format";

/**
 * The audit log in words: an action's stored code (kept in JSON, the filter and a tooltip) as a short
 * phrase, and an entry's details as "key: value" text instead of a JSON dump.
 */
const ACTIONS: Record<string, string> = {
  "allocation.set": "changed allocations",
  "budget.member.add": "added a budget member",
  "budget.member.remove": "removed a budget member",
  "cluster.create": "created a cluster",
  "cluster.policy": "changed a cluster's policy",
  "enrollment-token.issue": "issued an enrollment token",
  "node.cordon": "cordoned a node",
  "node.drain": "drained a node",
  "node.uncordon": "returned a node to service",
  "node.markRepaired": "marked a node repaired",
  "node.revoke-credential": "revoked a host's credential",
  "oidc-rule.create": "added a single sign-on rule",
  "oidc-rule.delete": "removed a single sign-on rule",
  "seed.demo-world": "seeded the demo world",
  "token.create": "created an API token",
  "token.revoke": "revoked an API token",
  "tree.archive": "archived a tree node",
  "tree.create": "created a tree node",
  "tree.manager.add": "added a manager",
  "tree.manager.remove": "removed a manager",
  "tree.move": "moved a tree node",
  "tree.rename": "renamed a tree node",
  "user.create": "created a user",
  "user.create-admin": "created an admin",
  "user.disable": "disabled a user",
  "user.oidc-mapped": "mapped a user by single sign-on rules",
  "user.password-link": "issued a password link",
  "user.set-password": "set a password",
  "user.update": "changed a user",
};

export function auditActionText(code: string): string {
  return ACTIONS[code] ?? code.replace(/[.-]/g, " ");
}

const ppm = (v: unknown) => (typeof v === "number" ? `${+(v / 10_000).toFixed(2)}%` : "?");

function valueText(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return /^[A-Z][A-Z_]+$/.test(v) ? v.toLowerCase().replace(/_/g, " ") : v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v))
    return v
      .map((x) => {
        const c = x as { path?: unknown; fromPpm?: unknown; toPpm?: unknown };
        // An allocation change: "lab/vision 30% → 35%".
        return typeof c.path === "string" && "toPpm" in c ? `${c.path} ${ppm(c.fromPpm)} → ${ppm(c.toPpm)}` : valueText(x);
      })
      .join(", ");
  return JSON.stringify(v);
}

/** "2 Dec, 03:20" in the viewer's time zone: an ISO time in the details is not for people to parse. */
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
const localTime = (iso: string) =>
  new Date(iso).toLocaleString("en-GB", { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });

/** A key as shown: seconds (…Sec) read as durations, so their suffix goes. */
const label = (k: string) => (/Sec$/.test(k) ? k.slice(0, -3) : k);

function oneValue(k: string, v: unknown): string {
  if (/Sec$/.test(k) && typeof v === "number") return formatExactDuration(v);
  if (typeof v === "string" && ISO.test(v)) return localTime(v);
  return valueText(v);
}

/**
 * "name: demo workload generator · users: 150", leaving out the keys already shown as the target and
 * database ids (…Id); seconds (…Sec) read as durations, ISO times as local times.
 */
export function auditDetailsText(details: Record<string, unknown>, shownAsTarget: string): string {
  return Object.entries(details)
    .filter(([k, v]) => k !== "target" && !/Id$/.test(k) && v !== null && v !== undefined && v !== "" && v !== shownAsTarget)
    .map(([k, v]) => {
      const c = v as { from?: unknown; to?: unknown };
      // A setting changed: "debugMaxGpusPerUser: 8 → 16" ("none" for a setting that was or is off).
      if (typeof v === "object" && "from" in c && "to" in c)
        return `${label(k)}: ${oneValue(k, c.from) || "none"} → ${oneValue(k, c.to) || "none"}`;
      return `${label(k)}: ${oneValue(k, v)}`;
    })
    .join(" · ");
}
