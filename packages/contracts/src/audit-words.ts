import { formatExactDuration } from "./format";

/**
 * The audit log in words, for the web's Admin → Audit log and `tranche admin audit` alike: an action's
 * stored code (kept in JSON and the API's filter) as a short phrase, and an entry's details as
 * "key: value" text instead of a JSON dump.
 */
const ACTIONS: Record<string, string> = {
  "allocation.set": "changed allocations",
  "budget.member.add": "added a budget member",
  "budget.member.remove": "removed a budget member",
  "budget.userLimit": "changed a per-user GPU limit",
  "cluster.create": "created a cluster",
  "lab.import": "imported a lab file",
  "job.cancel": "cancelled another person's job",
  "job.hold": "held another person's job",
  "job.release": "released another person's job",
  "cluster.policy": "changed a cluster's policy",
  "enrollment-token.issue": "issued an enrollment token",
  "node.cordon": "cordoned a node",
  "node.drain": "drained a node",
  "node.planDrain": "planned a node's drain",
  "node.cancelDrain": "cancelled a node's planned drain",
  "node.uncordon": "returned a node to service",
  "node.markRepaired": "marked a node repaired",
  "node.revoke-credential": "revoked a host's credential",
  "node.retire": "retired a node",
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
  "user.end-sessions": "signed a user out",
  "user.oidc-mapped": "mapped a user by single sign-on rules",
  "user.password-link": "issued a password link",
  "user.set-password": "set a password",
  "user.update": "changed a user",
};

/** Every action as people read it, by its words: the audit filters' choices (the API takes the code). */
export const AUDIT_ACTIONS: readonly { code: string; words: string }[] = Object.entries(ACTIONS)
  .map(([code, words]) => ({ code, words }))
  .sort((a, b) => a.words.localeCompare(b.words));

/**
 * The actions a filter's text means, for a person who types what the log shows: the action whose words
 * it is ("Drained a node"), else those whose words contain it ("node": cordoned, drained, … a node); a
 * code or a code's prefix as the API takes it ("node.drain", "user.") matches its actions too.
 */
export function auditActionsMatching(text: string): { code: string; words: string }[] {
  const t = text.trim().toLowerCase();
  if (!t) return [];
  const exact = AUDIT_ACTIONS.filter((a) => a.words === t || a.code.toLowerCase() === t);
  if (exact.length > 0) return exact;
  const byCode = AUDIT_ACTIONS.filter((a) => /[.-]$/.test(t) && a.code.toLowerCase().startsWith(t));
  if (byCode.length > 0) return byCode;
  return AUDIT_ACTIONS.filter((a) => a.words.includes(t));
}

export function auditActionText(code: string): string {
  return (
    ACTIONS[code] ?? code.replace(/[.-]/g, " ").replace(/([a-z])([A-Z])/g, (_, a: string, b: string) => `${a} ${b.toLowerCase()}`)
  );
}

/** The details' keys as people say them; any other key has its camelCase split ("nodeName": "node name"). */
const KEYS: Record<string, string> = {
  gpuType: "GPU type",
  maxMinRuntime: "longest protection",
  squattingUnprotectAfter: "squatting ends protection after",
  debugReservePercent: "debug GPUs kept free (%)",
  debugMaxGpusPerUser: "debug GPUs per user",
  debugVictimMaxGpuHours: "most work a debug job may make a preempted run lose (GPU-hours)",
  expiresAt: "expires",
  jobsLeft: "their jobs still waiting or running there",
  nodeName: "only for host",
};

/**
 * An entry's target as people read it: a single sign-on rule is stored as "EMAIL_DOMAIN:example.org"
 * or "GROUP:ml-team", shown as "e-mail domain example.org", "group ml-team".
 */
export function auditTargetText(target: string): string {
  return target.replace(/^EMAIL_DOMAIN:/, "e-mail domain ").replace(/^GROUP:/, "group ");
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
const label = (k: string) => {
  const key = /Sec$/.test(k) ? k.slice(0, -3) : k;
  return KEYS[key] ?? key.replace(/([a-z])([A-Z])/g, (_, a: string, b: string) => `${a} ${b.toLowerCase()}`);
};

const isChange = (v: unknown): v is { from: unknown; to: unknown } =>
  typeof v === "object" && v !== null && !Array.isArray(v) && "from" in v && "to" in v;

/** A setting changed: "debug GPUs per user: 8 → 16" ("none" for a setting that was or is off). */
const changeText = (k: string, c: { from: unknown; to: unknown }) =>
  `${label(k)}: ${oneValue(k, c.from) || "none"} → ${oneValue(k, c.to) || "none"}`;

function oneValue(k: string, v: unknown): string {
  if (/Sec$/.test(k) && typeof v === "number") return formatExactDuration(v);
  if (typeof v === "boolean") return v ? "yes" : "no";
  // A person's own words (a drain's reason, an allocation's note) stay as written: "ECC", not "ecc".
  if ((k === "reason" || k === "note") && typeof v === "string") return v;
  if (typeof v === "string" && ISO.test(v)) return localTime(v);
  return valueText(v);
}

/**
 * "name: demo workload generator · users: 150", leaving out the keys already shown as the target and
 * database ids (…Id); seconds (…Sec) read as durations, ISO times as local times.
 */
export function auditDetailsText(details: Record<string, unknown>, shownAsTarget: string): string {
  // The entry's own change ({ from: "READY", to: "DRAINING" }, a rename, a limit) first, as "ready →
  // draining": the stored order put "to" before "from" ("to: draining · from: ready").
  const own =
    "from" in details && "to" in details ? `${oneValue("", details.from) || "none"} → ${oneValue("", details.to) || "none"}` : "";
  const rest = Object.entries(details)
    // Database ids (…Id, and the ids of the rules that mapped a user) mean nothing to a person.
    .filter(
      ([k, v]) =>
        k !== "target" &&
        k !== "rules" &&
        !(own && (k === "from" || k === "to")) &&
        !/Id$/.test(k) &&
        v !== null &&
        v !== undefined &&
        v !== "" &&
        v !== shownAsTarget,
    )
    .map(([k, v]) => {
      if (isChange(v)) return changeText(k, v);
      // Several settings changed at once ({ changes: { role: { from, to } } }): each as its own change.
      if (typeof v === "object" && v !== null && !Array.isArray(v) && Object.values(v).every(isChange))
        return Object.entries(v as Record<string, { from: unknown; to: unknown }>)
          .map(([ck, cv]) => changeText(ck, cv))
          .join(" · ");
      return `${label(k)}: ${oneValue(k, v)}`;
    })
    .join(" · ");
  return [own, rest].filter(Boolean).join(" · ");
}
