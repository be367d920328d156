// Checkpoints across hosts: two agent processes with their own state folders and one shared checkpoint
// root (--checkpoint-root), a real worker and Postgres. A resumable job writes a checkpoint on one node,
// reports it (the mtime of .tranche-checkpoint), is drained off that node and finds it on the other.
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "@tranche/db/testing";
import { loadClusterSnapshot } from "@tranche/domain/runtime";
import { startStack, submit, waitFor, type AgentSet, type Stack, type World } from "./harness";

describe("checkpoints across hosts", () => {
  let stack: Stack;
  let db: TestDatabase;
  let world: World;
  let a: AgentSet;
  const root = mkdtempSync(join(tmpdir(), "tranche-ckpt-root-"));

  beforeAll(async () => {
    // Separate processes and state folders: nothing but the shared root can carry a checkpoint over.
    stack = await startStack("checkpoints", {
      nodes: 2,
      agents: [["c1-0"], ["c1-1"]],
      agentArgs: ["--checkpoint-root", root],
      waitForAgents: true,
    });
    ({ db, world } = stack);
    a = stack.agents[0]!;
  });

  afterAll(async () => {
    await stack?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("a resumable job requeued to another node finds its checkpoint there, with its restart count, and its checkpoint time reaches the scheduler's snapshot", async () => {
    await db.prisma.node.update({ where: { name: "c1-1" }, data: { state: "CORDONED" } });
    const id = await submit(db.prisma, world, {
      gpus: 8,
      minRuntime: 0,
      resumable: true,
      gracePeriod: 2,
      command: [
        'if [ -f "$TRANCHE_CHECKPOINT_DIR/step" ]; then',
        '  echo "resumed on $TRANCHE_NODE_NAME at step $(cat "$TRANCHE_CHECKPOINT_DIR/step"), restart $TRANCHE_RESTART_COUNT, in $TRANCHE_CHECKPOINT_DIR";',
        "else",
        '  echo "fresh on $TRANCHE_NODE_NAME, restart $TRANCHE_RESTART_COUNT, in $TRANCHE_CHECKPOINT_DIR";',
        '  echo 41 > "$TRANCHE_CHECKPOINT_DIR/step"; touch "$TRANCHE_CHECKPOINT_DIR/.tranche-checkpoint";',
        "fi; sleep 60",
      ].join("\n"),
    });
    const logText = async () =>
      (await db.prisma.jobLogChunk.findMany({ where: { jobId: id }, orderBy: { id: "asc" } })).map((c) => c.text).join("");
    await waitFor("the job to start fresh on c1-0", async () => (await logText()).includes("fresh on c1-0"));
    const dir = join(root, String(id));
    expect(await logText()).toContain(`fresh on c1-0, restart 0, in ${dir}\n`);
    expect(statSync(dir).mode & 0o777).toBe(0o700);

    const job = await waitFor("the checkpoint time to be reported", async () => {
      const j = await db.prisma.job.findUniqueOrThrow({ where: { id } });
      return j.lastCheckpointAt ? j : null;
    });
    const mark = statSync(join(dir, ".tranche-checkpoint")).mtime;
    expect(Math.abs(job.lastCheckpointAt!.getTime() - mark.getTime())).toBeLessThan(1000);
    const snap = await loadClusterSnapshot(db.prisma, world.clusterId, Math.floor(Date.now() / 1000));
    expect(snap.running.find((r) => r.id === String(id))?.lastCheckpointAt).toBe(
      Math.floor(job.lastCheckpointAt!.getTime() / 1000),
    );

    // c1-0 reports itself unhealthy and drains: the job is preempted, requeued, and starts on c1-1.
    await db.prisma.node.update({ where: { name: "c1-1" }, data: { state: "READY" } });
    writeFileSync(join(a.dir, "c1-0", "unhealthy"), "GPU 2: Xid 79, fell off the bus");
    await waitFor("the job to resume on c1-1", async () => (await logText()).includes("resumed on c1-1"), 45_000);
    expect(await logText()).toContain(`resumed on c1-1 at step 41, restart 1, in ${dir}\n`);
  }, 90_000);
});
