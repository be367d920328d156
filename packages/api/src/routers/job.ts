import type { TRPCRouterRecord } from "@trpc/server";
import { jobIdInput, jobLogsInput, listJobsInput, submitJobInput } from "@tranche/contracts";
import { cancelJob, getJob, getJobDetail, getJobLogPage, listJobs, setJobHeld, submitJob } from "@tranche/domain";
import { authedProcedure } from "../trpc";

export const jobRouter = {
  submit: authedProcedure.input(submitJobInput).mutation(({ ctx, input }) => submitJob(ctx.prisma, ctx.user, input)),
  list: authedProcedure.input(listJobsInput.optional()).query(({ ctx, input }) => listJobs(ctx.prisma, ctx.user, input ?? {})),
  get: authedProcedure.input(jobIdInput).query(({ ctx, input }) => getJob(ctx.prisma, ctx.user, input.id)),
  detail: authedProcedure.input(jobIdInput).query(({ ctx, input }) => getJobDetail(ctx.prisma, ctx.user, input.id)),
  /** One page of the job's kept log: its end by default, or forward/back from a cursor (jobLogsQuery). */
  logs: authedProcedure.input(jobLogsInput).query(({ ctx, input }) => getJobLogPage(ctx.prisma, ctx.user, input.id, input)),
  cancel: authedProcedure.input(jobIdInput).mutation(({ ctx, input }) => cancelJob(ctx.prisma, ctx.user, input.id)),
  hold: authedProcedure.input(jobIdInput).mutation(({ ctx, input }) => setJobHeld(ctx.prisma, ctx.user, input.id, true)),
  release: authedProcedure.input(jobIdInput).mutation(({ ctx, input }) => setJobHeld(ctx.prisma, ctx.user, input.id, false)),
} satisfies TRPCRouterRecord;
