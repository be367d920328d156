import type { TRPCRouterRecord } from "@trpc/server";
import {
  JOB_LIST_DEFAULT,
  LOG_PAGE_DEFAULT,
  extendSessionInput,
  jobActionInput,
  jobIdInput,
  jobLogsInput,
  listJobRowsInput,
  listJobsInput,
  setDependenciesInput,
  startSessionInput,
  submitJobInput,
  updateJobInput,
} from "@tranche/contracts";
import {
  actOnJobs,
  cancelArray,
  cancelJob,
  getJob,
  getArrayView,
  getJobDetail,
  extendSession,
  holdArray,
  releaseArray,
  getJobLogPage,
  listJobs,
  listJobRows,
  startSession,
  setDependencies,
  setJobHeld,
  submitJob,
  updateArray,
  updateJob,
} from "@tranche/domain";
import { enterJobRows, enterLogChunks } from "../request-gate";
import { authedProcedure } from "../trpc";
import { withinBound } from "./within-bound";

// job.list answers every task of an array as a job; job.rows is the list with each array as one row. Asked
// of job.list, arrays: "rows" would be ignored and the caller would get tasks where it asked for rows.
const listTasksInput = listJobsInput.refine((input) => input.arrays !== "rows", {
  message: "job.list lists every task of an array as a job: ask job.rows for each array as one row",
  path: ["arrays"],
});

// job.update answers one job; array: true would make it answer an array's count instead, so it is refused
// with the procedure that does that, as job.list refuses arrays: "rows".
const updateOneInput = updateJobInput.safeExtend({ id: jobIdInput.shape.id }).refine((input) => input.array !== true, {
  message: "job.update changes one job: ask job.updateArray to change every waiting task of an array",
  path: ["array"],
});

export const jobRouter = {
  submit: authedProcedure.input(submitJobInput).mutation(({ ctx, input }) => submitJob(ctx.prisma, ctx.user, input)),
  /** An interactive session (a shell server or Jupyter) reached through the proxy. */
  startSession: authedProcedure.input(startSessionInput).mutation(({ ctx, input }) => startSession(ctx.prisma, ctx.user, input)),
  /** More protection for a running session: a new contract, charged (the core's extendProtection). */
  extend: authedProcedure
    .input(extendSessionInput)
    .mutation(({ ctx, input }) => extendSession(ctx.prisma, ctx.user, input.id, input.by)),
  list: authedProcedure.input(listTasksInput.optional()).query(({ ctx, input }) =>
    withinBound(
      () => enterJobRows(ctx.user.id, input?.limit ?? JOB_LIST_DEFAULT),
      () => listJobs(ctx.prisma, ctx.user, input ?? {}),
    ),
  ),
  /** The same list with each job array as one row, its tasks counted by state (My jobs, All jobs); arrays: "tasks" lists tasks. */
  rows: authedProcedure.input(listJobRowsInput.optional()).query(({ ctx, input }) =>
    withinBound(
      () => enterJobRows(ctx.user.id, input?.limit ?? JOB_LIST_DEFAULT),
      () => listJobRows(ctx.prisma, ctx.user, input ?? {}),
    ),
  ),
  get: authedProcedure.input(jobIdInput).query(({ ctx, input }) => getJob(ctx.prisma, ctx.user, input.id)),
  detail: authedProcedure.input(jobIdInput).query(({ ctx, input }) => getJobDetail(ctx.prisma, ctx.user, input.id)),
  /** One page of the job's kept log: its end by default, or forward/back from a cursor (jobLogsQuery). */
  logs: authedProcedure.input(jobLogsInput).query(({ ctx, input }) =>
    withinBound(
      () => enterLogChunks(ctx.user.id, input.limit ?? LOG_PAGE_DEFAULT),
      () => getJobLogPage(ctx.prisma, ctx.user, input.id, input),
    ),
  ),
  cancel: authedProcedure.input(jobIdInput).mutation(({ ctx, input }) => cancelJob(ctx.prisma, ctx.user, input.id)),
  hold: authedProcedure.input(jobIdInput).mutation(({ ctx, input }) => setJobHeld(ctx.prisma, ctx.user, input.id, true)),
  /** Cancel, hold or release many jobs by ids or a filter, as POST /jobs/actions does. */
  act: authedProcedure.input(jobActionInput).mutation(({ ctx, input }) => actOnJobs(ctx.prisma, ctx.user, input)),
  /** Cancel every task of a job array that has not ended (`id`: the array's id). */
  cancelArray: authedProcedure.input(jobIdInput).mutation(({ ctx, input }) => cancelArray(ctx.prisma, ctx.user, input.id)),
  /** A job array's tasks by state and what the caller may do to them all (`id`: the array's id). */
  array: authedProcedure.input(jobIdInput).query(({ ctx, input }) => getArrayView(ctx.prisma, ctx.user, input.id)),
  /** Hold every waiting task of a job array, as POST /arrays/{id}/hold does. */
  holdArray: authedProcedure.input(jobIdInput).mutation(({ ctx, input }) => holdArray(ctx.prisma, ctx.user, input.id)),
  /** Release every held task of a job array the caller may release, as POST /arrays/{id}/release does. */
  releaseArray: authedProcedure.input(jobIdInput).mutation(({ ctx, input }) => releaseArray(ctx.prisma, ctx.user, input.id)),
  /** Replace a pending job's dependencies (refused when it would close a cycle). */
  setDependencies: authedProcedure
    .input(setDependenciesInput.extend({ id: jobIdInput.shape.id }))
    .mutation(({ ctx, input }) => setDependencies(ctx.prisma, ctx.user, input.id, input.after)),
  /** Change a waiting job in place, keeping its place in the queue (PATCH /jobs/{id}). */
  update: authedProcedure
    .input(updateOneInput)
    .mutation(({ ctx, input: { id, ...input } }) => updateJob(ctx.prisma, ctx.user, id, input)),
  /** Change every waiting task of a job array (`id`: the array's id), as PATCH /jobs/{id} with array: true. */
  updateArray: authedProcedure
    .input(updateJobInput.safeExtend({ id: jobIdInput.shape.id }))
    .mutation(({ ctx, input: { id, ...input } }) => updateArray(ctx.prisma, ctx.user, id, input)),
  release: authedProcedure.input(jobIdInput).mutation(({ ctx, input }) => setJobHeld(ctx.prisma, ctx.user, input.id, false)),
} satisfies TRPCRouterRecord;
