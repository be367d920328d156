import type { PrismaClient, Tx } from "@tranche/db";
import { healthErrors, type JobEventKind } from "@tranche/contracts";
import {
  type CycleResult,
  type LostOp,
  type NodeStateOp,
  type PreemptOp,
  type StartOp,
  isMove,
  viableStarts,
} from "@tranche/scheduler-core";
import { addCapacity, chargeOpenSegments, chargeRunEnds } from "./charge";
import { runStarts } from "./run-start";
import { closeRun } from "./job-lifecycle";
import { lockJobs, lockNodes } from "./lock-order";
import type { CycleInput } from "./load-snapshot";
import { LEASE_NAME } from "./lease";
import { chooseReasons, writeReasons } from "./write-reasons";

/**
 * Phase 3 of a cycle: apply the core's plan in ONE transaction — the commit point of the cycle.
 *
 * Everything the cycle decided becomes true together or not at all: node transitions, lost jobs,
 * preemptions (STOPPING + grace), maxRuntime kills, starts (RUNNING + run segment + placements),
 * pending reasons and positions, the usage and capacity ledgers, job events with reason codes and
 * sentences, and the SchedulingCycle record. A worker killed before the commit leaves nothing behind;
 * after it, agents learn their assignments from the database on their next heartbeat. So a crashed
 * cycle is simply decided again from a fresh snapshot: no job starts twice, none is lost.
 *
 * Every state change is conditional on the state the snapshot saw (a job cancelled or held while the
 * cycle was deciding is not started; a node cordoned meanwhile receives nothing), and the transaction
 * first re-checks that this worker still holds the scheduler lease (fencing a paused ex-leader).
 */

export class LostLeadershipError extends Error {
  override readonly name = "LostLeadershipError";
}

export interface ApplyTimings {
  loadMs: number;
  decideMs: number;
}

export interface AppliedCycle {
  cycleId: bigint;
  started: number;
  preempted: number;
  lost: number;
  killed: number;
  reasonsWritten: number;
  /** Milliseconds per step of the transaction (also stored in the cycle's stats). */
  steps: Record<string, number>;
  /** Nodes whose agents have something new to do (start or stop). */
  touchedNodes: string[];
  /** Nodes that became REPAIR: the repair hook fires for them after the commit. */
  repairNodes: { id: string; name: string }[];
  applyMs: number;
}

const json = (v: unknown) => JSON.parse(JSON.stringify(v)) as object;
const at = (s: number) => new Date(s * 1000);

export async function applyCyclePlan(
  prisma: PrismaClient,
  input: CycleInput,
  result: CycleResult,
  leaderId: string,
  timings: ApplyTimings,
  options: {
    /** Reasons rewritten per cycle beyond the head of the queue and new jobs (see R10 below). */
    reasonWriteCap?: number;
    /** First reasons of jobs that have none yet, written per cycle (the rest follow in the next cycles). */
    newReasonWriteCap?: number;
    charge?: boolean;
    /**
     * Whether a repair hook or webhook is configured: when not (false), a node that becomes REPAIR is
     * not said to fire one. Undefined keeps the core's sentence.
     */
    repairHookConfigured?: boolean;
    /** tests: runs inside the transaction, just before COMMIT */ beforeCommit?: () => Promise<void> | void;
  } = {},
): Promise<AppliedCycle> {
  const t0 = performance.now();
  const clusterId = input.snapshot.cluster.id;
  const now = input.now;
  const nowDate = at(now);
  const touched = new Set<string>();
  const placementsOf = new Map(input.snapshot.running.map((j) => [j.id, j.placement.map((p) => p.nodeId)]));

  const steps: Record<string, number> = {};
  let mark = performance.now();
  const step = (name: string) => {
    const t = performance.now();
    steps[name] = Math.round((t - mark) * 10) / 10;
    mark = t;
  };
  const out = await prisma.$transaction(
    async (tx) => {
      step("begin");
      // Fence: only the lease holder may commit a cycle. The row lock also serialises two workers.
      const fenced = await tx.$executeRaw`
        UPDATE worker_lease SET "lastCycleAt" = ${nowDate}, "updatedAt" = now()
        WHERE name = ${LEASE_NAME} AND "holderId" = ${leaderId} AND "expiresAt" > now()`;
      if (fenced !== 1) throw new LostLeadershipError(`worker ${leaderId} no longer holds the scheduler lease`);
      // Lock order shared with the agent heartbeat (lock-order.ts): the nodes this plan moves, then every
      // job it stops, loses or starts, in id order, before any segment or ledger row. A heartbeat takes
      // its node and its jobs the same way, so the two wait for each other only where they share a job.
      await lockNodes(tx, { nodeIds: result.plan.flatMap((o) => (o.op === "NODE_STATE" ? [o.nodeId] : [])) });
      await lockJobs(
        tx,
        result.plan.flatMap((o) =>
          o.op === "LOST" || o.op === "PREEMPT" || o.op === "KILL" || o.op === "START" ? [Number(o.jobId)] : [],
        ),
      );

      const cycle = await tx.schedulingCycle.create({
        data: {
          clusterId,
          at: nowDate,
          durationMs: 0,
          loadMs: timings.loadMs,
          decideMs: timings.decideMs,
          applyMs: 0,
          pendingCount: result.stats.pending,
          runningCount: result.stats.running,
          started: 0,
          preempted: 0,
          leaderId,
        },
        select: { id: true },
      });
      const cycleId = cycle.id;
      const events: {
        jobId: number;
        at: Date;
        kind: JobEventKind;
        reasonCode: string | null;
        sentence: string;
        details: object;
        actorKind: "SCHEDULER";
        cycleId: bigint;
      }[] = [];

      step("fence+cycle");
      // Node transitions as they stand now (an operator may have moved a node meanwhile).
      const nodeRows = await tx.node.findMany({
        where: { clusterId },
        select: { id: true, name: true, state: true, drainIsManual: true, healthDetails: true },
      });
      const nodeState = new Map(nodeRows.map((n) => [n.id, n]));
      const repairNodes: { id: string; name: string }[] = [];
      // One UPDATE and one INSERT of node events per wave; a node moved twice in one plan (rare) gets its
      // second move in the next wave, so the moves apply in plan order as before.
      let nodeOps = result.plan.filter((o): o is NodeStateOp => o.op === "NODE_STATE");
      while (nodeOps.length > 0) {
        const seen = new Set<string>();
        const wave: NodeStateOp[] = [];
        const later: NodeStateOp[] = [];
        for (const op of nodeOps) (seen.has(op.nodeId) ? later : wave).push(op);
        for (const op of wave) seen.add(op.nodeId);
        nodeOps = later;
        // The core cannot know the worker's configuration: without a repair hook, say so instead.
        if (options.repairHookConfigured === false)
          for (const op of wave)
            if (op.runRepairHook)
              op.sentence = `Node ${nodeState.get(op.nodeId)?.name ?? op.nodeId} is empty after draining and goes to repair; no repair hook is configured, so an operator marks it repaired.`;
        // The core sees only that a node is unhealthy: the agent's own words go into the reason and the
        // history, so an operator reads what failed without the host, and still after it recovers.
        for (const op of wave)
          if (op.reason === "UNHEALTHY_REPORT") {
            const node = nodeState.get(op.nodeId);
            const errors = healthErrors(node?.healthDetails);
            if (node && errors)
              op.sentence = `Node ${node.name} reported itself unhealthy (${errors}) and is draining: nothing new starts there, and its jobs leave as their contracts allow.`;
          }
        // A move is stamped at the cycle's time, or at the node's last change if that is later: a cycle
        // that read its snapshot before an operator's drain stamped the repair that drain caused a second
        // before the drain ("7 s ago ready -> draining" above "8 s ago draining -> in repair").
        // A planned drain that starts is done: its plan is cleared (a node back from repair keeps none), and
        // an operator planned it, so it counts as a manual drain (R8).
        const moved = await tx.$queryRaw<{ id: string }[]>`
          UPDATE node n SET state = u.t::"NodeState", "stateReason" = u.s,
            "stateChangedAt" = GREATEST(${nowDate}, n."stateChangedAt"),
            "drainAt" = CASE WHEN u.r = 'PLANNED_DRAIN' THEN NULL ELSE n."drainAt" END,
            "drainReason" = CASE WHEN u.r = 'PLANNED_DRAIN' THEN NULL ELSE n."drainReason" END,
            "drainPlannedById" = CASE WHEN u.r = 'PLANNED_DRAIN' THEN NULL ELSE n."drainPlannedById" END,
            "drainIsManual" = CASE WHEN u.r = 'PLANNED_DRAIN' THEN true ELSE n."drainIsManual" END
          FROM unnest(${wave.map((o) => o.nodeId)}::text[], ${wave.map((o) => o.from)}::text[], ${wave.map((o) => o.to)}::text[],
                      ${wave.map((o) => o.sentence)}::text[], ${wave.map((o) => o.reason)}::text[]) AS u(id, f, t, s, r)
          WHERE n.id = u.id AND n.state = u.f::"NodeState"
            -- A plan cancelled or moved since the snapshot was read does not drain the node.
            AND (u.r <> 'PLANNED_DRAIN' OR n."drainAt" <= ${nowDate})
          RETURNING n.id`;
        const ok = new Set(moved.map((m) => m.id));
        const applied = wave.filter((o) => ok.has(o.nodeId));
        if (applied.length === 0) continue;
        const automatic = applied.map(
          (op) => op.reason !== "PLANNED_DRAIN" && (!(nodeState.get(op.nodeId)?.drainIsManual ?? false) || op.to === "DOWN"),
        );
        await tx.$executeRaw`
          INSERT INTO node_event ("nodeId", at, "fromState", "toState", reason, automatic)
          SELECT u.n, n."stateChangedAt", u.f::"NodeState", u.t::"NodeState", u.s, u.a
          FROM unnest(${applied.map((o) => o.nodeId)}::text[], ${applied.map((o) => o.from)}::text[], ${applied.map((o) => o.to)}::text[],
                      ${applied.map((o) => o.sentence)}::text[], ${automatic}::boolean[]) AS u(n, f, t, s, a)
          JOIN node n ON n.id = u.n`;
        for (const op of applied) {
          const row = nodeState.get(op.nodeId);
          if (row) row.state = op.to;
          if (op.runRepairHook) repairNodes.push({ id: op.nodeId, name: row?.name ?? op.nodeId });
        }
      }

      step("nodes");
      // Usage ledger: allocated runs charged up to now, in one statement and before any run closes (the
      // lost ones included), so this cycle takes its ledger rows in the one order every charge uses
      // (charge.ts) and never deadlocks with a heartbeat charging exits. Runs whose job a heartbeat holds
      // right now are skipped (it charges them up to their end itself); the loader adds the
      // not-yet-charged tail itself, so charging every few seconds keeps ratios exact.
      const lostOps = result.plan.filter((o): o is LostOp => o.op === "LOST");
      if (options.charge !== false) await chargeOpenSegments(tx, nowDate, { clusterId }, { skipLocked: true });
      else
        await chargeRunEnds(
          tx,
          lostOps.flatMap((op) => {
            const seg = input.segments.get(op.jobId);
            return seg?.charged ? [{ segmentId: seg.segmentId, until: nowDate }] : [];
          }),
        );

      // R9: jobs on DOWN nodes are lost; requeued at once when they may be; the segment is still charged.
      let lost = 0;
      for (const op of lostOps) {
        const seg = input.segments.get(op.jobId);
        if (!seg) continue;
        const job = await tx.job.findUnique({
          where: { id: Number(op.jobId) },
          select: { state: true, resumable: true, requeuePolicy: true },
        });
        const open = await tx.runSegment.findUnique({ where: { id: seg.segmentId }, select: { endedAt: true, endReason: true } });
        if (!job || !open || open.endedAt !== null || (job.state !== "RUNNING" && job.state !== "STOPPING")) continue;
        const closed = await closeRun(
          tx,
          {
            jobId: Number(op.jobId),
            segmentId: seg.segmentId,
            jobState: job.state,
            intent: open.endReason,
            resumable: job.resumable,
            requeuePolicy: job.requeuePolicy,
            charged: seg.charged,
            gpus: op.gpus,
          },
          {
            endedAt: nowDate,
            cause: "lost",
            exitCode: null,
            signal: "LOST",
            cycleId,
            sentence: op.sentence,
            requeue: op.requeue,
            fenceAt: fenceAtOf(input, op.nodeIds),
          },
          { kind: "SCHEDULER", id: leaderId },
        );
        if (!closed) continue;
        lost++;
        for (const n of op.nodeIds) touched.add(n);
      }

      step("lost");
      // The starts that can still happen: the job is still PENDING (locked until the commit) and every
      // node of its placement is READY now. A PREEMPT made for a start that will not happen is not
      // applied either: its victim keeps running instead of being stopped for nothing.
      // A move (R12) relaunches a job that is still RUNNING: its state is read (and locked) too.
      // The revision fence: a waiting job whose contract was changed after the snapshot (update-job.ts
      // counts up job.revision in the same statement that changes it, on a PENDING or HELD row) reads
      // here as changed, not PENDING (a hold and a release count it up too: one held and released since
      // the snapshot waits for the next cycle), so neither its start nor a preemption made for it is applied: 8
      // GPUs placed for a job that now asks 4, or a run charged to its old budget, never happen. The row
      // is locked from lockJobs above until the commit, so an update either committed before this read
      // (and is seen) or waits and then finds the job RUNNING (and is refused). One compare per start.
      const startIds = result.plan.filter((o) => o.op === "START").map((o) => Number(o.jobId));
      const stateNow =
        startIds.length === 0
          ? new Map<string, string>()
          : new Map(
              (
                await tx.$queryRaw<{ id: number; state: string; revision: number }[]>`
                  SELECT id, state::text AS state, revision FROM job WHERE id = ANY(${startIds}::int[]) AND state IN ('PENDING', 'RUNNING') FOR UPDATE`
              ).map((r) => [
                String(r.id),
                r.state === "PENDING" && input.revisions.get(String(r.id)) !== r.revision ? "CHANGED" : r.state,
              ]),
            );
      const go = viableStarts(
        result.plan,
        (id) => stateNow.get(id),
        (id) => nodeState.get(id)?.state,
      );
      // R6: preemptions — SIGTERM now (agents learn it from STOPPING), SIGKILL at graceUntil — and jobs
      // past their maxRuntime (the core's KILL ops): one UPDATE of jobs and one of segments for all of them.
      type Stop = {
        jobId: string;
        segmentId: bigint;
        graceUntil: number;
        endReason: "PREEMPT" | "KILL";
        endDetail: string;
        requeue: boolean | null;
      };
      const stops: Stop[] = [];
      const stopEvent = new Map<string, (typeof events)[number]>();
      const stopping = new Set<string>();
      // Preemptions first, then kills: a job stops once, and a preemption wins over a kill, as before.
      for (const o of [...result.plan.filter((x) => x.op === "PREEMPT"), ...result.plan.filter((x) => x.op === "KILL")]) {
        if (o.op !== "PREEMPT" && o.op !== "KILL") continue;
        const seg = input.segments.get(o.jobId);
        if (!seg || stopping.has(o.jobId)) continue;
        if (o.op === "PREEMPT" && o.byJobId !== null && !go.has(o.byJobId)) continue;
        stopping.add(o.jobId);
        if (o.op === "PREEMPT") {
          const op: PreemptOp = o;
          stops.push({
            jobId: op.jobId,
            segmentId: seg.segmentId,
            graceUntil: op.graceUntil,
            endReason: "PREEMPT",
            endDetail: op.reasonCode,
            requeue: op.requeue,
          });
          stopEvent.set(op.jobId, {
            jobId: Number(op.jobId),
            at: nowDate,
            kind: "PREEMPTED",
            reasonCode: op.reasonCode,
            sentence: op.sentence,
            details: json({
              byJobId: op.byJobId,
              gracePeriod: op.gracePeriod,
              graceUntil: op.graceUntil,
              requeue: op.requeue,
              lostGpuSeconds: op.lostGpuSeconds,
              ...op.details,
            }),
            actorKind: "SCHEDULER",
            cycleId,
          });
        } else {
          stops.push({
            jobId: o.jobId,
            segmentId: seg.segmentId,
            graceUntil: o.graceUntil,
            endReason: "KILL",
            endDetail: "MAX_RUNTIME",
            requeue: false,
          });
          stopEvent.set(o.jobId, {
            jobId: Number(o.jobId),
            at: nowDate,
            kind: "MAX_RUNTIME",
            reasonCode: "MAX_RUNTIME",
            sentence: o.sentence,
            details: {},
            actorKind: "SCHEDULER",
            cycleId,
          });
        }
      }
      let preempted = 0;
      let killed = 0;
      if (stops.length > 0) {
        const rows = await tx.$queryRaw<{ id: number }[]>`
          UPDATE job j SET state = 'STOPPING', "graceUntil" = u.g, "updatedAt" = now()
          FROM unnest(${stops.map((x) => Number(x.jobId))}::int[], ${stops.map((x) => at(x.graceUntil).toISOString())}::timestamptz[]) AS u(id, g)
          WHERE j.id = u.id AND j.state = 'RUNNING'
          RETURNING j.id`;
        const ok = new Set(rows.map((r) => String(r.id)));
        const done = stops.filter((x) => ok.has(x.jobId));
        if (done.length > 0) {
          await tx.$executeRaw`
            UPDATE run_segment s SET "endReason" = u.r::"SegmentEnd", "endDetail" = u.d, requeue = u.q
            FROM unnest(${done.map((x) => String(x.segmentId))}::bigint[], ${done.map((x) => x.endReason)}::text[],
                        ${done.map((x) => x.endDetail)}::text[], ${done.map((x) => x.requeue)}::boolean[]) AS u(id, r, d, q)
            WHERE s.id = u.id AND s."endedAt" IS NULL`;
        }
        for (const x of done) {
          if (x.endReason === "PREEMPT") preempted++;
          else killed++;
          for (const n of placementsOf.get(x.jobId) ?? []) touched.add(n);
          events.push(stopEvent.get(x.jobId)!);
        }
      }

      step("preempt+kill");
      // Starts: only onto nodes still READY, only jobs still PENDING (see viableStarts above).
      const starts = result.plan.filter((o): o is StartOp => o.op === "START" && go.has(o.jobId));
      let started = 0;
      if (starts.length > 0) {
        const startOf = await runStarts(tx, starts, now);
        const fresh = starts.filter((s) => !isMove(s));
        const ids = fresh.map((s) => Number(s.jobId));
        const startedAt = fresh.map((s) => startOf(s).startedAt.toISOString());
        const protectedUntil = fresh.map((s) => startOf(s).protectedUntil.toISOString());
        // A start also drops the job's start forecast: one it had while waiting would read as current
        // again if the job were requeued, naming jobs that have ended since (a new one comes with the next).
        const rows = await tx.$queryRaw<{ id: number }[]>`
          UPDATE job j SET state = 'RUNNING', "startedAt" = u.s, "protectedUntil" = u.p, "graceUntil" = NULL,
                 "reasonCode" = NULL, "reasonSentence" = NULL, "reasonDetails" = NULL, "queuePosition" = NULL,
                 "estimatedStartAt" = NULL, "estimatedStartWhy" = NULL, "estimatedStartAfter" = '{}', "estimatedAt" = NULL,
                 "reasonCycleId" = ${cycleId}, "squattingSince" = NULL, "idleSince" = NULL, "exitCode" = NULL, "exitSignal" = NULL, "updatedAt" = now()
          FROM unnest(${ids}::int[], ${startedAt}::timestamptz[], ${protectedUntil}::timestamptz[]) AS u(id, s, p)
          WHERE j.id = u.id AND j.state = 'PENDING'
          RETURNING j.id`;
        const ok = new Set(rows.map((r) => String(r.id)));
        // R12 moves: the job was stopped above and runs on at once in a new segment, which its node
        // launches only after the old copy has exited (agent-protocol's assignments). graceUntil stays:
        // the old copy's SIGKILL time, until that copy's exit closes its segment (closeRun).
        const moves = starts.filter(isMove);
        if (moves.length > 0) {
          const moved = await tx.$queryRaw<{ id: number }[]>`
            UPDATE job j SET state = 'RUNNING', "startedAt" = u.s, "protectedUntil" = u.s, "updatedAt" = now()
            FROM unnest(${moves.map((s) => Number(s.jobId))}::int[], ${moves.map((s) => startOf(s).startedAt.toISOString())}::timestamptz[]) AS u(id, s)
            WHERE j.id = u.id AND j.state = 'STOPPING'
            RETURNING j.id`;
          for (const r of moved) ok.add(String(r.id));
        }
        const go = starts.filter((s) => ok.has(s.jobId));
        started = go.length;
        step("starts:jobs");
        if (go.length > 0) {
          const segs = await tx.$queryRaw<{ id: bigint; jobId: number }[]>`
            INSERT INTO run_segment ("jobId", "clusterId", "budgetId", gpus, "startedAt", "protectedUntil", charged, "chargedUntil", "startCycleId")
            SELECT u.j, ${clusterId}, u.b, u.g, u.s, u.p, u.c, u.s, ${cycleId}
            FROM unnest(${go.map((s) => Number(s.jobId))}::int[], ${go.map((s) => s.budgetId)}::text[], ${go.map((s) => s.gpus)}::int[],
                        ${go.map((s) => startOf(s).startedAt.toISOString())}::timestamptz[], ${go.map((s) => (s.charged ? startOf(s).protectedUntil.toISOString() : null))}::timestamptz[],
                        ${go.map((s) => s.charged)}::boolean[]) AS u(j, b, g, s, p, c)
            RETURNING id, "jobId"`;
          step("starts:segments");
          const segOf = new Map(segs.map((s) => [String(s.jobId), s.id]));
          const pSeg: string[] = [];
          const pNode: string[] = [];
          const pGpus: string[] = [];
          for (const s of go) {
            for (const p of s.placement) {
              pSeg.push(String(segOf.get(s.jobId)!));
              pNode.push(p.nodeId);
              pGpus.push(`{${p.gpuIndexes.join(",")}}`);
              touched.add(p.nodeId);
            }
          }
          await tx.$executeRaw`
            INSERT INTO segment_placement ("segmentId", "nodeId", "gpuIndexes")
            SELECT u.s, u.n, u.g::int[] FROM unnest(${pSeg}::bigint[], ${pNode}::text[], ${pGpus}::text[]) AS u(s, n, g)`;
          step("starts:placements");
          for (const s of go) {
            events.push({
              jobId: Number(s.jobId),
              at: startOf(s).decidedAt,
              kind: "STARTED",
              reasonCode: s.reason.code,
              sentence: s.reason.sentence,
              details: json({
                segmentId: String(segOf.get(s.jobId)),
                position: s.reason.position,
                ratio: s.reason.ratio,
                lane: s.lane,
                charged: s.charged,
                startBy: s.startBy,
                afterExitOf: s.afterExitOf,
                placement: s.placement.map((p) => ({
                  node: input.nodeNames.get(p.nodeId) ?? p.nodeId,
                  gpuIndexes: p.gpuIndexes,
                })),
              }),
              actorKind: "SCHEDULER",
              cycleId,
            });
          }
        }
      }

      step("starts");
      // R10: one reason per pending job, decided this cycle; the head of the queue, new jobs and the
      // stalest are stored (write-reasons.ts).
      const reasonsWritten = await writeReasons(
        tx,
        chooseReasons(input, result.pending, options.reasonWriteCap ?? 1500, options.newReasonWriteCap ?? 2500),
        cycleId,
        input.revisions,
      );

      step("reasons");
      if (events.length > 0) {
        await tx.$executeRaw`
          INSERT INTO job_event ("jobId", at, kind, "reasonCode", sentence, details, "actorKind", "cycleId")
          SELECT u.j, u.a, u.k, u.r, u.s, u.d::jsonb, 'SCHEDULER', ${cycleId}
          FROM unnest(${events.map((e) => e.jobId)}::int[], ${events.map((e) => e.at.toISOString())}::timestamptz[], ${events.map((e) => e.kind)}::text[],
                      ${events.map((e) => e.reasonCode)}::text[], ${events.map((e) => e.sentence)}::text[],
                      ${events.map((e) => JSON.stringify(e.details))}::text[]) AS u(j, a, k, r, s, d)`;
      }
      step("events");

      // Capacity ledger: healthy capacity since the previous cycle (capped, so a long pause of every
      // worker does not invent hours nobody observed). Usage was charged before the runs closed.
      const from = input.previousCycleAt === null ? now : Math.max(input.previousCycleAt, now - 300);
      await addCapacity(tx, clusterId, at(from), nowDate, input.healthyGpus, input.totalGpus);

      step("ledgers");
      const applyMs = performance.now() - t0;
      await tx.schedulingCycle.update({
        where: { id: cycleId },
        data: {
          applyMs,
          durationMs: timings.loadMs + timings.decideMs + applyMs,
          started,
          preempted,
          ratios: json(result.ratios),
          reservations: json(result.reservations),
          stats: json({
            ...result.stats,
            killed,
            lostApplied: lost,
            reasonsWritten,
            order: result.order.length,
            applySteps: steps,
          }),
        },
      });
      if (options.beforeCommit) await options.beforeCommit();
      return { cycleId, started, preempted, lost, killed, reasonsWritten, repairNodes, steps };
    },
    { timeout: 60_000, maxWait: 15_000 },
  );
  return { ...out, touchedNodes: [...touched], applyMs: performance.now() - t0 };
}

export type { Tx };

/**
 * When the agent of a lost run's nodes would have begun to fence it: the earliest of their last
 * heartbeats (or, never heard from, their last change of state) plus the heartbeat timeout. An exit
 * it reports later from before then was the job's own (late-exit.ts); undefined when not known.
 */
function fenceAtOf(input: CycleInput, nodeIds: readonly string[]): string | undefined {
  const heard = input.snapshot.nodes
    .filter((n) => nodeIds.includes(n.id))
    .map((n) => n.lastHeartbeatAt ?? n.stateChangedAt ?? null)
    .filter((t): t is number => t !== null);
  if (heard.length === 0) return undefined;
  return new Date((Math.min(...heard) + Math.floor(input.policy.heartbeatTimeout)) * 1000).toISOString();
}
