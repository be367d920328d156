import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "@tranche/db/testing";
import { cancelJob } from "@tranche/domain";
import { renderMetrics } from "@tranche/domain/runtime";
import { startStack, submit, waitFor, type Stack, type World } from "./harness";

describe("a job's life on real agents", () => {
  let stack: Stack;
  let db: TestDatabase;
  let world: World;
  const scratch = mkdtempSync(join(tmpdir(), "tranche-ckpt-"));

  beforeAll(async () => {
    stack = await startStack("lifecycle", { nodes: 1 });
    ({ db, world } = stack);
  });

  afterAll(async () => {
    await stack?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("a submitted job starts on its node's agent as a real process, finishes COMPLETED, and its output reaches the job's log", async () => {
    const id = await submit(db.prisma, world, {
      gpus: 4,
      command: 'echo "job $TRANCHE_JOB_ID sees GPUs $CUDA_VISIBLE_DEVICES"; sleep 1; echo done >&2',
    });
    const job = await waitFor("the job to complete", async () => {
      const j = await db.prisma.job.findUniqueOrThrow({ where: { id } });
      return j.state === "COMPLETED" ? j : null;
    });
    expect(job.exitCode).toBe(0);
    const segments = await db.prisma.runSegment.findMany({ where: { jobId: id }, include: { placements: true } });
    expect(segments).toHaveLength(1);
    expect(segments[0]!.endReason).toBe("FINISH");
    expect(segments[0]!.placements[0]!.gpuIndexes).toHaveLength(4);
    const logs = await waitFor("both log streams", async () => {
      const chunks = await db.prisma.jobLogChunk.findMany({ where: { jobId: id }, orderBy: { id: "asc" } });
      return chunks.some((c) => c.stream === "stderr") ? chunks : null;
    });
    const gpus = segments[0]!.placements[0]!.gpuIndexes.join(",");
    expect(
      logs
        .filter((c) => c.stream === "stdout")
        .map((c) => c.text)
        .join(""),
    ).toBe(`job ${id} sees GPUs ${gpus}\n`);
    expect(
      logs
        .filter((c) => c.stream === "stderr")
        .map((c) => c.text)
        .join(""),
    ).toBe("done\n");
    const kinds = (await db.prisma.jobEvent.findMany({ where: { jobId: id }, orderBy: { id: "asc" } })).map((e) => e.kind);
    expect(kinds).toEqual(["SUBMITTED", "STARTED", "FINISHED"]);
  });

  it("a failing command ends FAILED with its exit code", async () => {
    const id = await submit(db.prisma, world, { gpus: 1, command: "exit 3" });
    const job = await waitFor("the job to fail", async () => {
      const j = await db.prisma.job.findUniqueOrThrow({ where: { id } });
      return j.state === "FAILED" ? j : null;
    });
    expect(job.exitCode).toBe(3);
  });

  it("a preempted resumable job gets SIGTERM, writes a checkpoint within its grace, is requeued, and its next run resumes from the checkpoint", async () => {
    const ckpt = join(scratch, "ckpt");
    // Unallocated (minRuntime 0): free, preemptible at any moment by allocated work (R3).
    const script = [
      `if [ -f "$CKPT" ]; then echo "resumed from step $(cat "$CKPT")"; exit 0; fi`,
      `i=0`,
      `trap 'echo "$i" > "$CKPT"; echo "checkpointed at step $i"; exit 0' TERM`,
      `while true; do i=$((i+1)); sleep 0.1; done`,
    ].join("\n");
    const victim = await submit(db.prisma, world, {
      gpus: 8,
      minRuntime: 0,
      resumable: true,
      gracePeriod: 5,
      command: script,
      env: { CKPT: ckpt },
      name: "victim",
    });
    await waitFor("the victim to run", async () => {
      const chunks = await db.prisma.runSegment.count({ where: { jobId: victim } });
      const j = await db.prisma.job.findUniqueOrThrow({ where: { id: victim } });
      return chunks === 1 && j.state === "RUNNING";
    });
    await new Promise((r) => setTimeout(r, 1500)); // let it take a few steps
    const preemptor = await submit(db.prisma, world, { gpus: 8, minRuntime: 60, command: "sleep 1", name: "preemptor" });

    const events = await waitFor(
      "the victim to be preempted, requeued, restarted and finished",
      async () => {
        const j = await db.prisma.job.findUniqueOrThrow({ where: { id: victim } });
        if (j.state !== "COMPLETED") return null;
        return db.prisma.jobEvent.findMany({ where: { jobId: victim }, orderBy: { id: "asc" } });
      },
      45_000,
    );
    expect(events.map((e) => e.kind)).toEqual(["SUBMITTED", "STARTED", "PREEMPTED", "REQUEUED", "STARTED", "FINISHED"]);
    const preempted = events[2]!;
    expect(preempted.reasonCode).toBe("UNALLOCATED_FOR_ALLOCATED");
    expect((preempted.details as { byJobId: string }).byJobId).toBe(String(preemptor));
    // It left by itself within its grace (exit 0 from its trap), not by SIGKILL.
    const requeued = events[3]!;
    expect((requeued.details as { exitCode: number | null; signal: string | null }).exitCode).toBe(0);
    expect(requeued.at.getTime() - preempted.at.getTime()).toBeLessThan(5_000 + 2_000);

    const logs = (await db.prisma.jobLogChunk.findMany({ where: { jobId: victim }, orderBy: { id: "asc" } }))
      .map((c) => c.text)
      .join("");
    const step = Number(/checkpointed at step (\d+)/.exec(logs)?.[1]);
    expect(step).toBeGreaterThan(0);
    expect(logs).toContain(`resumed from step ${step}`);
    const segs = await db.prisma.runSegment.findMany({ where: { jobId: victim }, orderBy: { id: "asc" } });
    expect(segs.map((s) => s.endReason)).toEqual(["PREEMPT", "FINISH"]);
    // The preempted run keeps its preemption's reason once its exit is reported (the Measures page counts by it).
    expect(segs[0]!.endDetail).toBe("UNALLOCATED_FOR_ALLOCATED");
    expect(segs.every((s) => !s.charged)).toBe(true);
    const job = await db.prisma.job.findUniqueOrThrow({ where: { id: victim } });
    expect(job.requeueCount).toBe(1);
    expect(await db.prisma.job.findUniqueOrThrow({ where: { id: preemptor } }).then((j) => j.state)).toBe("COMPLETED");
    // /metrics counts it under its reason, and every other live reason at 0.
    const metrics = (await renderMetrics(db.prisma)).text;
    expect(metrics).toContain('tranche_preemptions_total{cluster="c1",reason="UNALLOCATED_FOR_ALLOCATED"} 1');
    expect(metrics).toContain('tranche_preemptions_total{cluster="c1",reason="FAIR_SHARE"} 0');
    expect(metrics).not.toContain('reason="PRIORITY"');
  }, 60_000);

  it("cancelling a running job (STOPPING with a grace) makes its agent send SIGTERM, and the job ends CANCELLED", async () => {
    const id = await submit(db.prisma, world, {
      gpus: 2,
      command: `trap 'echo "stopping cleanly"; exit 0' TERM; echo up; while true; do sleep 0.1; done`,
    });
    await waitFor("the job to run", async () =>
      (await db.prisma.jobLogChunk.findMany({ where: { jobId: id } })).some((c) => c.text.includes("up")),
    );
    await cancelJob(db.prisma, world.actor, id);
    const job = await waitFor("the job to be cancelled", async () => {
      const j = await db.prisma.job.findUniqueOrThrow({ where: { id } });
      return j.state === "CANCELLED" ? j : null;
    });
    expect(job.exitCode).toBe(0);
    const seg = await db.prisma.runSegment.findFirstOrThrow({ where: { jobId: id } });
    expect(seg.endReason).toBe("CANCEL");
    await waitFor("its last words", async () =>
      (await db.prisma.jobLogChunk.findMany({ where: { jobId: id } })).some((c) => c.text.includes("stopping cleanly")),
    );
  });

  it("a job that reaches its maxRuntime is stopped and ends KILLED", async () => {
    const id = await submit(db.prisma, world, { gpus: 1, minRuntime: 1, maxRuntime: 2, command: "echo up; sleep 60" });
    const job = await waitFor(
      "the job to be killed",
      async () => {
        const j = await db.prisma.job.findUniqueOrThrow({ where: { id } });
        return j.state === "KILLED" ? j : null;
      },
      20_000,
    );
    const kinds = (await db.prisma.jobEvent.findMany({ where: { jobId: id }, orderBy: { id: "asc" } })).map((e) => e.kind);
    expect(kinds).toEqual(["SUBMITTED", "STARTED", "MAX_RUNTIME", "KILLED"]);
    const seg = await db.prisma.runSegment.findFirstOrThrow({ where: { jobId: id } });
    expect(seg.endReason).toBe("KILL");
    expect(job.finishedAt!.getTime() - seg.startedAt.getTime()).toBeLessThan(8_000);
  });

  it("an allocated run is charged to its budget's usage ledger as it runs", async () => {
    const rows = await db.prisma.usageLedger.findMany({ where: { budgetId: world.budgets["lab/a"] } });
    const charged = rows.reduce((s, r) => s + Number(r.gpuSeconds), 0);
    const segs = await db.prisma.runSegment.findMany({ where: { budgetId: world.budgets["lab/a"], charged: true } });
    const expected = segs.reduce(
      (s, seg) =>
        s + seg.gpus * Math.max(0, Math.round(((seg.endedAt ?? new Date()).getTime() - seg.startedAt.getTime()) / 1000)),
      0,
    );
    expect(segs.length).toBeGreaterThan(0);
    // Whole seconds at both ends: within one second per segment of the exact figure.
    expect(Math.abs(charged - expected)).toBeLessThanOrEqual(segs.reduce((s, seg) => s + seg.gpus, 0));
  });
});
