/**
 * SPEC §4 utilization: an allocated job whose GPUs the agents report under 5% busy for 30 minutes
 * is flagged as likely squatting. Pure: the caller passes the samples it has (agent reports).
 */
export interface UtilizationSample {
  jobId: string;
  at: number;
  /** Mean busy % over the job's GPUs at that report, 0..100. */
  busyPercent: number;
}

export interface SquattingOptions {
  /** Below this busy % a sample counts as idle (default 5). */
  thresholdPercent?: number;
  /** Idle for at least this long, seconds (default 30 minutes). */
  window?: number;
}

export interface SquattingFlag {
  jobId: string;
  /** First sample of the current idle streak. */
  idleSince: number;
  idleFor: number;
}

/**
 * Jobs whose latest samples have all been under the threshold for at least `window` seconds up to
 * `now`. Only charged (allocated) jobs can squat: pass their ids in `allocatedJobIds`; a busy sample
 * resets the streak. Output is sorted by job id.
 */
export function flagSquatting(
  samples: readonly UtilizationSample[],
  allocatedJobIds: ReadonlySet<string>,
  now: number,
  options: SquattingOptions = {},
): SquattingFlag[] {
  const threshold = options.thresholdPercent ?? 5;
  const window = options.window ?? 1800;
  const byJob = new Map<string, UtilizationSample[]>();
  for (const s of samples) {
    if (!allocatedJobIds.has(s.jobId) || s.at > now) continue;
    const list = byJob.get(s.jobId);
    if (list) list.push(s);
    else byJob.set(s.jobId, [s]);
  }
  const flags: SquattingFlag[] = [];
  for (const [jobId, list] of byJob) {
    list.sort((a, b) => a.at - b.at);
    let idleSince: number | null = null;
    for (const s of list) {
      if (s.busyPercent < threshold) idleSince ??= s.at;
      else idleSince = null;
    }
    if (idleSince !== null && now - idleSince >= window) flags.push({ jobId, idleSince, idleFor: now - idleSince });
  }
  return flags.sort((a, b) => (a.jobId < b.jobId ? -1 : a.jobId > b.jobId ? 1 : 0));
}
