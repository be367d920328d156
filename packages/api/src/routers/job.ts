import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { jobIdInput, listJobsInput, setDependenciesInput, strictObject, submitJobInput } from "@tranche/contracts";
import {
  cancelArray,
  cancelJob,
  getJob,
  getJobDetail,
  getJobLogs,
  listJobs,
  setDependencies,
  setJobHeld,
  submitJob,
} from "@tranche/domain";
import { authedProcedure } from "../trpc";

export const jobRouter = {
  submit: authedProcedure.input(submitJobInput).mutation(({ ctx, input }) => submitJob(ctx.prisma, ctx.user, input)),
  list: authedProcedure.input(listJobsInput.optional()).query(({ ctx, input }) => listJobs(ctx.prisma, ctx.user, input ?? {})),
  get: authedProcedure.input(jobIdInput).query(({ ctx, input }) => getJob(ctx.prisma, ctx.user, input.id)),
  detail: authedProcedure.input(jobIdInput).query(({ ctx, input }) => getJobDetail(ctx.prisma, ctx.user, input.id)),
  logs: authedProcedure
    .input(
      strictObject(
        {
          id: jobIdInput.shape.id,
          // A bigint id: 18 digits always fit Postgres bigint.
          afterId: z
            .string()
            .regex(/^\d{1,18}$/, "afterId must be a log chunk id")
            .optional(),
        },
        "a log query",
      ),
    )
    .query(({ ctx, input }) => getJobLogs(ctx.prisma, ctx.user, input.id, input.afterId)),
  cancel: authedProcedure.input(jobIdInput).mutation(({ ctx, input }) => cancelJob(ctx.prisma, ctx.user, input.id)),
  hold: authedProcedure.input(jobIdInput).mutation(({ ctx, input }) => setJobHeld(ctx.prisma, ctx.user, input.id, true)),
  /** Cancel every task of a job array that has not ended (`id`: the array's id). */
  cancelArray: authedProcedure.input(jobIdInput).mutation(({ ctx, input }) => cancelArray(ctx.prisma, ctx.user, input.id)),
  /** Replace a pending job's dependencies (refused when it would close a cycle). */
  setDependencies: authedProcedure
    .input(setDependenciesInput.extend({ id: jobIdInput.shape.id }))
    .mutation(({ ctx, input }) => setDependencies(ctx.prisma, ctx.user, input.id, input.after)),
  release: authedProcedure.input(jobIdInput).mutation(({ ctx, input }) => setJobHeld(ctx.prisma, ctx.user, input.id, false)),
} satisfies TRPCRouterRecord;
