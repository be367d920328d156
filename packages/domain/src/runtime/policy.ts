import { resolvePolicy, type PolicyConfig } from "@tranche/scheduler-core";

/** A cluster's own policy settings, as stored; null (or absent) keeps the SPEC default. */
export interface ClusterPolicyColumns {
  maxMinRuntimeSec: number;
  squattingUnprotectAfterSec?: number | null;
  debugReserve?: number | null;
  debugMaxGpusPerUser?: number | null;
  debugVictimMaxCostSec?: number | null;
}

/**
 * The policy a cluster is scheduled with: SPEC defaults, the cluster's own settings (minRuntime cap,
 * squatting policy, the debug lane's reserve, per-user cap and victim limit), then the process's
 * overrides (the worker reads them from TRANCHE_POLICY, a JSON object of PolicyConfig fields, e.g.
 * '{"heartbeatTimeout":10}' in tests).
 */
export function resolveClusterPolicy(cluster: ClusterPolicyColumns, overrides: Partial<PolicyConfig> = {}): PolicyConfig {
  const own: Partial<PolicyConfig> = {
    maxMinRuntime: cluster.maxMinRuntimeSec,
    squattingUnprotectAfter: cluster.squattingUnprotectAfterSec ?? 0,
  };
  if (cluster.debugReserve != null) own.debugReserve = cluster.debugReserve;
  if (cluster.debugMaxGpusPerUser != null) own.debugMaxGpusPerUser = cluster.debugMaxGpusPerUser;
  if (cluster.debugVictimMaxCostSec != null) own.debugVictimMaxCost = cluster.debugVictimMaxCostSec;
  return resolvePolicy({ ...own, ...overrides });
}

/** Parse TRANCHE_POLICY; a malformed value is an error with one clear line, never silently ignored. */
export function policyOverridesFromEnv(raw: string | undefined): Partial<PolicyConfig> {
  if (!raw || !raw.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error(`TRANCHE_POLICY must be a JSON object of policy settings, got '${raw}'`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new Error("TRANCHE_POLICY must be a JSON object");
  const known = new Set(Object.keys(resolvePolicy()));
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(parsed)) {
    if (!known.has(k)) throw new Error(`TRANCHE_POLICY: unknown setting '${k}' (known: ${[...known].join(", ")})`);
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0)
      throw new Error(`TRANCHE_POLICY: ${k} must be a non-negative number`);
    out[k] = v;
  }
  return out as Partial<PolicyConfig>;
}

let processCache: { raw: string | undefined; policy: PolicyConfig } | null = null;

/**
 * The policy of this process's TRANCHE_POLICY over the defaults: what the worker schedules every
 * cluster with in the settings no cluster has its own of (the debug lane's bounds among them), so the
 * web app, set alike, shows the lanes the worker orders by. A malformed value gives the defaults here:
 * the worker refuses it with its own message.
 */
export function processPolicy(): PolicyConfig {
  const raw = process.env.TRANCHE_POLICY;
  if (!processCache || processCache.raw !== raw) {
    let overrides: Partial<PolicyConfig> = {};
    try {
      overrides = policyOverridesFromEnv(raw);
    } catch {
      // the defaults, as said above
    }
    processCache = { raw, policy: resolvePolicy(overrides) };
  }
  return processCache.policy;
}
