import type { CycleResult, KillOp, LostOp, NodeStateOp, PreemptOp, ReserveOp, StartOp } from "@tranche/scheduler-core";

/** Small readers over a cycle's plan, so tests say what they check. */
export const startsOf = (r: CycleResult): StartOp[] => r.plan.filter((o): o is StartOp => o.op === "START");
export const preemptionsOf = (r: CycleResult): PreemptOp[] => r.plan.filter((o): o is PreemptOp => o.op === "PREEMPT");
export const lostOf = (r: CycleResult): LostOp[] => r.plan.filter((o): o is LostOp => o.op === "LOST");
export const nodeStatesOf = (r: CycleResult): NodeStateOp[] => r.plan.filter((o): o is NodeStateOp => o.op === "NODE_STATE");
export const reservesOf = (r: CycleResult): ReserveOp[] => r.plan.filter((o): o is ReserveOp => o.op === "RESERVE");
export const startedIds = (r: CycleResult): string[] => startsOf(r).map((s) => s.jobId);
export const preemptedIds = (r: CycleResult): string[] => preemptionsOf(r).map((p) => p.jobId);
export const reasonCode = (r: CycleResult, jobId: string): string | undefined => r.pending.get(jobId)?.code;
export const killsOf = (r: CycleResult): KillOp[] => r.plan.filter((o): o is KillOp => o.op === "KILL");
