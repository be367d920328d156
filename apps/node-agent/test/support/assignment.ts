import type { RunAssignment } from "@tranche/contracts";

/** A run the control plane hands this node: segment `segmentId` runs `command` on GPU 0, with 1 s of grace. */
export const runAssignment = (segmentId: string, command: string, more: Partial<RunAssignment> = {}): RunAssignment => ({
  jobId: Number(segmentId),
  segmentId,
  name: `job-${segmentId}`,
  command,
  env: {},
  gpuIndexes: [0],
  nodes: ["n1"],
  rank: 0,
  startBy: new Date().toISOString(),
  maxRuntimeSec: null,
  gracePeriodSec: 1,
  ...more,
});
