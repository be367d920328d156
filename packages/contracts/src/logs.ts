import { z } from "zod";
import { strictObject, typeError } from "./input";
import { jobIdInput } from "./job-id";

/** The most log chunks one page holds. */
export const LOG_PAGE_MAX = 1000;
export const LOG_PAGE_DEFAULT = 200;

/** A place in a job's log: the id of a stored chunk, as decimal digits (0: before the first chunk). */
const cursor = (field: string) =>
  z
    .string({ error: typeError(field, `${field} must be a log cursor (the 'next' or 'older' value of an earlier page)`) })
    .regex(/^\d{1,18}$/, `${field} must be a log cursor (the 'next' or 'older' value of an earlier page), e.g. 0 for the start`);

/**
 * GET /api/v1/jobs/{id}/logs: one page of a job's kept output. Without a cursor the page is the end
 * of the log (the newest chunks: what `tail` shows); `after` reads forward from a point (`after=0`:
 * from the start; a page's `next`: what came since), `before` reads back from one (a page's `older`).
 */
const jobLogsShape = {
  stream: z.enum(["stdout", "stderr"], { error: typeError("stream", "stream must be stdout or stderr") }).optional(),
  after: cursor("after").optional(),
  before: cursor("before").optional(),
  limit: z.coerce
    .number({ error: typeError("limit", "limit must be a number") })
    .int("limit must be a whole number")
    .min(1, "limit must be at least 1")
    .max(LOG_PAGE_MAX, `limit must be at most ${LOG_PAGE_MAX}`)
    .optional(),
};
const oneDirection = {
  message: "after and before cannot be used together: read forward from a point or back from one",
  path: ["before"],
};
export const jobLogsQuery = strictObject(jobLogsShape, "a log query").refine(
  (q) => q.after === undefined || q.before === undefined,
  oneDirection,
);
/** GET /api/v1/jobs/{id}/logs/download: the whole kept log, of one stream or both; it has no pages. */
export const jobLogDownloadQuery = strictObject({ stream: jobLogsShape.stream }, "a log download's query");
/** The web app's form of the same query: the job's id with it. */
export const jobLogsInput = strictObject({ id: jobIdInput.shape.id, ...jobLogsShape }, "a log query").refine(
  (q) => q.after === undefined || q.before === undefined,
  oneDirection,
);
export type JobLogsQuery = z.infer<typeof jobLogsQuery>;

export interface LogChunkView {
  /** This chunk's place in the log (a cursor). */
  cursor: string;
  at: string;
  stream: "stdout" | "stderr";
  /** The node that sent it (null for chunks stored before nodes were recorded). */
  node: string | null;
  text: string;
}

export interface JobLogPage {
  jobId: number;
  /** The job's state: a page of a finished job's log ends it for good. */
  state: string;
  chunks: LogChunkView[];
  /** Pass as `after` to read what follows this page (to follow the log, poll with it). */
  next: string;
  /** Pass as `before` to read the output before this page; null when the page starts the kept log. */
  older: string | null;
  /** Bytes of this job's output the control plane keeps, and the older bytes it dropped (retention). */
  keptBytes: number;
  droppedBytes: number;
  /**
   * True once the job has ended and its agents have uploaded all of its output (none still reports
   * its exit): a follower may stop after reading to `next`.
   */
  complete: boolean;
}
