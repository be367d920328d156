import { defaultPolicy, runCycle } from "@tranche/scheduler-core";
import { generateSnapshot, applyPlan } from "./scheduler-core.bench";
const now = 1_800_000_000;
let snap = generateSnapshot({ nodes: 1024, gpusPerNode: 8, running: 2000, pending: 10000, fanout: [5, 4, 10] }, 42, now);
let t = now;
for (let i = 0; i < 2; i++) { snap = applyPlan(snap, runCycle(snap, defaultPolicy, t), t); t += 30; for (const n of snap.nodes) n.lastHeartbeatAt = t - 5; }
const times: number[] = [];
for (let i = 0; i < 60; i++) { const t0 = performance.now(); runCycle(snap, defaultPolicy, t); times.push(performance.now() - t0); }
times.sort((a, b) => a - b);
console.log("median", times[30]!.toFixed(1), "min", times[0]!.toFixed(1));
