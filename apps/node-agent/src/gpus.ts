import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import type { AgentHealth, GpuInfo } from "@tranche/contracts";

/** What the agent learns about its GPUs each heartbeat: inventory, health and busy %. */
export interface GpuProbe {
  gpus: GpuInfo[];
  health: AgentHealth;
  busyPercent: number | null;
}

export interface GpuSource {
  probe(busyIndexes: Map<number, number>): Promise<GpuProbe>;
}

export const NVIDIA_SMI_QUERY = ["--query-gpu=index,uuid,name,memory.total,utilization.gpu", "--format=csv,noheader,nounits"];

/**
 * Parse `nvidia-smi --query-gpu=index,uuid,name,memory.total,utilization.gpu --format=csv,noheader,nounits`.
 * Unparseable lines and "[N/A]"/"[Unknown Error]" fields are reported as errors (the node is then
 * unhealthy), never silently dropped.
 */
export function parseNvidiaSmi(output: string): { gpus: GpuInfo[]; errors: string[] } {
  const gpus: GpuInfo[] = [];
  const errors: string[] = [];
  const lines = output
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  for (const [i, line] of lines.entries()) {
    const f = line.split(",").map((s) => s.trim());
    if (f.length < 5) {
      errors.push(`nvidia-smi line ${i + 1} has ${f.length} fields, expected 5: '${line}'`);
      continue;
    }
    const [index, uuid, name, mem, util] = f as [string, string, string, string, string];
    const idx = Number(index);
    if (!Number.isInteger(idx) || idx < 0) {
      errors.push(`nvidia-smi line ${i + 1}: bad GPU index '${index}'`);
      continue;
    }
    if (/\[(Unknown Error|GPU is lost|Not Supported)\]/i.test(line) || /ERR!/.test(line))
      errors.push(`GPU ${idx} (${uuid}) reports an error: '${line}'`);
    const memory = Number(mem);
    const u = Number(util);
    gpus.push({
      index: idx,
      uuid,
      name,
      memoryMiB: Number.isFinite(memory) && memory >= 0 ? Math.round(memory) : 0,
      utilizationPercent: Number.isFinite(u) && u >= 0 && u <= 100 ? u : null,
    });
  }
  if (lines.length === 0) errors.push("nvidia-smi lists no GPUs");
  return { gpus, errors };
}

const meanBusy = (gpus: GpuInfo[]): number | null => {
  const v = gpus.map((g) => g.utilizationPercent).filter((u): u is number => u !== null);
  return v.length ? Math.round((v.reduce((a, b) => a + b, 0) / v.length) * 10) / 10 : null;
};

/** Real GPUs through nvidia-smi; a failing nvidia-smi (or a GPU error) makes the node unhealthy. */
export class NvidiaSmi implements GpuSource {
  private lastGood: GpuInfo[] = [];
  constructor(private readonly binary = "nvidia-smi") {}

  probe(): Promise<GpuProbe> {
    return new Promise((resolve) => {
      execFile(this.binary, NVIDIA_SMI_QUERY, { timeout: 10_000 }, (err, stdout, stderr) => {
        if (err) {
          // A missing binary said "spawn nvidia-smi ENOENT": name what to do instead.
          const why =
            (err as NodeJS.ErrnoException).code === "ENOENT"
              ? `${this.binary} was not found (install the NVIDIA driver's nvidia-smi, or name it with --nvidia-smi PATH)`
              : (stderr || err.message).split("\n")[0]!.trim();
          resolve({ gpus: this.lastGood, health: { healthy: false, errors: [`nvidia-smi failed: ${why}`] }, busyPercent: null });
          return;
        }
        const { gpus, errors } = parseNvidiaSmi(stdout);
        if (gpus.length > 0) this.lastGood = gpus;
        resolve({ gpus, health: { healthy: errors.length === 0, errors }, busyPercent: meanBusy(gpus) });
      });
    });
  }
}

/**
 * `--fake-gpus N`: N made-up GPUs. A GPU running a job reports ~90% busy (or the job's
 * TRANCHE_FAKE_GPU_UTIL, to demo squatting); idle ones 0%. `isUnhealthy` lets demos and tests make a
 * node report itself unhealthy (the agent checks a file named `unhealthy` in the node's state folder).
 */
export class FakeGpus implements GpuSource {
  constructor(
    private readonly nodeName: string,
    private readonly count: number,
    private readonly isUnhealthy: () => string | null = () => null,
  ) {}

  async probe(busy: Map<number, number>): Promise<GpuProbe> {
    const gpus: GpuInfo[] = Array.from({ length: this.count }, (_, index) => ({
      index,
      uuid: `GPU-fake-${createHash("sha1").update(`${this.nodeName}/${index}`).digest("hex").slice(0, 24)}`,
      name: "Fake GPU",
      memoryMiB: 81_920,
      utilizationPercent: busy.get(index) ?? 0,
    }));
    const why = this.isUnhealthy();
    return { gpus, health: why ? { healthy: false, errors: [why] } : { healthy: true, errors: [] }, busyPercent: meanBusy(gpus) };
  }
}
