import { describe, expect, it } from "vitest";
import { heartbeatRequestSchema } from "@tranche/contracts";
import { FakeGpus, NvidiaSmi, parseNvidiaSmi } from "../src/gpus";

describe("parseNvidiaSmi", () => {
  it("reads index, uuid, name, memory and utilization from nvidia-smi's CSV", () => {
    const out = "0, GPU-aaa, NVIDIA H100 80GB HBM3, 81559, 97\n1, GPU-bbb, NVIDIA H100 80GB HBM3, 81559, 0\n";
    expect(parseNvidiaSmi(out)).toEqual({
      gpus: [
        { index: 0, uuid: "GPU-aaa", name: "NVIDIA H100 80GB HBM3", memoryMiB: 81559, utilizationPercent: 97 },
        { index: 1, uuid: "GPU-bbb", name: "NVIDIA H100 80GB HBM3", memoryMiB: 81559, utilizationPercent: 0 },
      ],
      errors: [],
    });
  });

  it("reports GPU errors, short lines and an empty listing as errors (the node is then unhealthy)", () => {
    const r = parseNvidiaSmi("0, GPU-aaa, NVIDIA H100, 81559, [Unknown Error]\n1, GPU-bbb\n");
    expect(r.gpus).toHaveLength(1);
    expect(r.gpus[0]!.utilizationPercent).toBeNull();
    expect(r.errors).toEqual([
      "GPU 0 (GPU-aaa) reports an error: '0, GPU-aaa, NVIDIA H100, 81559, [Unknown Error]'",
      "nvidia-smi line 2 has 2 fields, expected 5: '1, GPU-bbb'",
    ]);
    expect(parseNvidiaSmi("").errors).toEqual(["nvidia-smi lists no GPUs"]);
  });

  it("a missing or failing nvidia-smi makes the node report itself unhealthy", async () => {
    const probe = await new NvidiaSmi("/nonexistent/nvidia-smi").probe();
    expect(probe.health.healthy).toBe(false);
    expect(probe.health.errors[0]).toMatch(/^nvidia-smi failed: /);
  });
});

describe("FakeGpus", () => {
  it("pretends N GPUs, busy where jobs run, and is unhealthy while the node is marked so", async () => {
    let mark: string | null = null;
    const fake = new FakeGpus("n1", 4, () => mark);
    const p = await fake.probe(
      new Map([
        [1, 90],
        [2, 90],
      ]),
    );
    expect(p.gpus.map((g) => g.utilizationPercent)).toEqual([0, 90, 90, 0]);
    expect(p.busyPercent).toBe(45);
    expect(p.health).toEqual({ healthy: true, errors: [] });
    expect(new Set(p.gpus.map((g) => g.uuid)).size).toBe(4);
    mark = "GPU 3 fell off the bus";
    expect((await fake.probe(new Map())).health).toEqual({ healthy: false, errors: ["GPU 3 fell off the bus"] });
    // What it reports is a valid heartbeat.
    expect(
      heartbeatRequestSchema.safeParse({
        nodeName: "n1",
        agentVersion: "t",
        health: p.health,
        gpus: p.gpus,
        busyPercent: p.busyPercent,
        jobs: [],
      }).success,
    ).toBe(true);
  });
});
