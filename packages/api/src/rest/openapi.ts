import {
  LIMITS,
  MEASURES_MAX_HOURS,
  LOG_PAGE_DEFAULT,
  LOG_PAGE_MAX,
  MAX_BATCH_JOBS,
  allocationChangesQuery,
  apiError,
  formatBytes,
  jobView,
  listJobsInput,
  submitJobBatchInput,
  submitJobInput,
  updateJobInput,
} from "@tranche/contracts";
import { adminSchemas, withAdminPaths } from "./openapi-admin";
import { withJobRulePaths } from "./openapi-job-rules";
import { withNodePaths } from "./openapi-nodes";
import { withSessionPaths } from "./openapi-sessions";
import { errorResponses, jsonAnswer, queryParams, schema } from "./openapi-parts";

const JOB_LOG_PAGE_SCHEMA = {
  type: "object",
  properties: {
    jobId: { type: "integer" },
    state: { type: "string" },
    chunks: {
      type: "array",
      items: {
        type: "object",
        properties: {
          cursor: { type: "string" },
          at: { type: "string", format: "date-time" },
          stream: { type: "string", enum: ["stdout", "stderr"] },
          node: { type: ["string", "null"] },
          text: { type: "string" },
        },
        required: ["cursor", "at", "stream", "node", "text"],
      },
    },
    next: { type: "string", description: "pass as after to read what follows" },
    older: { type: ["string", "null"], description: "pass as before to read what came before; null at the start" },
    keptBytes: { type: "integer" },
    droppedBytes: { type: "integer", description: "older output dropped by the retention" },
    complete: { type: "boolean", description: "the job has ended and all of its output is uploaded: stop following" },
  },
  required: ["jobId", "state", "chunks", "next", "older", "keptBytes", "droppedBytes", "complete"],
};

/** OpenAPI 3.1 for /api/v1, generated from the same zod schemas the routes parse with. */
/** A GET without parameters that answers one JSON object (documented by its summary), or an error. */
function jsonGet(summary: string, operationId: string, description: string, errors: number[]) {
  return {
    get: {
      summary,
      operationId,
      responses: {
        "200": jsonAnswer(description),
        ...errorResponses(errors),
      },
    },
  };
}

/** An answer `{ job }`: one job. */
const jobAnswer = (description: string) => ({
  description,
  content: {
    "application/json": { schema: { type: "object", properties: { job: { $ref: "#/components/schemas/Job" } } } },
  },
});

/** PATCH /jobs/{id}'s answer `{ job, changed }`: changed false when the job already had the values. */
const updatedJobAnswer = (description: string) => ({
  description,
  content: {
    "application/json": {
      schema: {
        type: "object",
        properties: { job: { $ref: "#/components/schemas/Job" }, changed: { type: "boolean" } },
      },
    },
  },
});

/** An answer `{ jobs }`: a list of jobs. */
const jobsAnswer = (description: string) => ({
  description,
  content: {
    "application/json": {
      schema: {
        type: "object",
        properties: { jobs: { type: "array", items: { $ref: "#/components/schemas/Job" } } },
        required: ["jobs"],
      },
    },
  },
});

/** A POST on one job (/jobs/{id}/...) that answers the job after the change, or an error. */
function jobChange(summary: string, operationId: string, description = "The job after the change") {
  return {
    post: {
      summary,
      operationId,
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer", minimum: 1 } }],
      responses: { "200": jobAnswer(description), ...errorResponses([401, 403, 404, 409]) },
    },
  };
}

export function buildOpenApi(serverUrl = "/api/v1") {
  const listParams = queryParams(listJobsInput);
  const jobId = { name: "id", in: "path", required: true, schema: { type: "integer", minimum: 1 } };
  const logParams = [
    { name: "stream", in: "query", required: false, schema: { type: "string", enum: ["stdout", "stderr"] } },
    { name: "after", in: "query", required: false, schema: { type: "string", pattern: "^[0-9]{1,18}$" } },
    { name: "before", in: "query", required: false, schema: { type: "string", pattern: "^[0-9]{1,18}$" } },
    { name: "limit", in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: LOG_PAGE_MAX } },
  ];
  return {
    openapi: "3.1.0",
    info: {
      title: "Tranche API",
      version: "1",
      description:
        "Submit and follow GPU jobs on Tranche. Authenticate with `Authorization: Bearer <token>` (create tokens in the web app under API tokens). Durations are seconds or strings such as `2h`.",
    },
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "An API token (trn_...) carrying its user's rights" },
      },
      schemas: {
        SubmitJob: schema(submitJobInput, "input"),
        SubmitJobBatch: schema(submitJobBatchInput, "input"),
        Job: schema(jobView, "output"),
        Error: schema(apiError, "output"),
        JobLogPage: JOB_LOG_PAGE_SCHEMA,
        ...adminSchemas(),
      },
    },
    paths: withNodePaths(
      withSessionPaths(
        withJobRulePaths(
          withAdminPaths({
            "/jobs": {
              get: {
                summary: "List jobs (yours by default; scope=all for managers, operators and admins)",
                operationId: "listJobs",
                parameters: listParams,
                responses: {
                  "200": jobsAnswer("Jobs, newest first"),
                  ...errorResponses([400, 401, 403]),
                },
              },
              post: {
                summary: "Submit a job",
                description: `Strict: an unknown field answers 400 naming it. Limits: body ${formatBytes(LIMITS.requestBytes)} (413), command ${LIMITS.commandChars.toLocaleString("en-US")} characters, name ${LIMITS.nameChars} (no control characters such as ESC, nor ones that reorder text such as U+202E), env at most ${LIMITS.envVars} variables of at most ${formatBytes(LIMITS.envValueBytes)} each and ${formatBytes(LIMITS.envTotalBytes)} in all; no string may hold NUL (\\u0000). Idempotency keys are per user.`,
                operationId: "submitJob",
                requestBody: {
                  required: true,
                  content: { "application/json": { schema: { $ref: "#/components/schemas/SubmitJob" } } },
                },
                responses: {
                  "201": {
                    description: "The job, PENDING",
                    content: {
                      "application/json": {
                        schema: { type: "object", properties: { job: { $ref: "#/components/schemas/Job" } }, required: ["job"] },
                      },
                    },
                  },
                  ...errorResponses([400, 401, 403, 413]),
                },
              },
            },
            "/jobs/batch": {
              post: {
                summary: `Submit up to ${MAX_BATCH_JOBS} jobs at once (like a job array): all stored or none`,
                description: `Each item is checked as for POST /jobs. One bad item answers 400 with the item and field named (\`jobs.3.gpus\`); a budget the caller may not charge answers 403 naming the item; in both cases nothing is stored. Items whose idempotencyKey the caller already used answer with that job. The body holds at most ${formatBytes(LIMITS.batchRequestBytes)} (413 past it).`,
                operationId: "submitJobBatch",
                requestBody: {
                  required: true,
                  content: { "application/json": { schema: { $ref: "#/components/schemas/SubmitJobBatch" } } },
                },
                responses: {
                  "201": jobsAnswer("The jobs, PENDING, in the order submitted"),
                  ...errorResponses([400, 401, 403, 413]),
                },
              },
            },
            "/jobs/{id}": {
              get: {
                summary: "One job with its current reason",
                operationId: "getJob",
                parameters: [jobId],
                responses: {
                  "200": jobAnswer("The job"),
                  ...errorResponses([401, 404]),
                },
              },
              patch: {
                summary:
                  "Change a waiting (pending or held) job's GPUs, runtimes, priority, name or budget; it keeps its id and its place in the queue",
                description:
                  "Its owner, managers of a subtree its budget lies in, operators and admins (as for hold). Fields left out stay as they are; maxRuntime null removes the limit. Every value is checked as at submit (400 naming the field; 403 when the job's owner may not charge the new budget), and one bad value changes nothing. A running or ended job answers 409 saying what may be done instead. The answer is { job, changed }: an update whose values the job already has changes nothing and answers 200 with changed: false (no event, no new revision), so a retried update is not an error. With array: true the id is a job array's, every task of it that still waits is changed, and the answer is { arrayId, updated, notWaiting, changed }.",
                operationId: "updateJob",
                parameters: [jobId],
                requestBody: { required: true, content: { "application/json": { schema: schema(updateJobInput, "input") } } },
                responses: {
                  "200": updatedJobAnswer(
                    "The job after the change, and whether anything changed (with array: true, { arrayId, updated, notWaiting, changed })",
                  ),
                  ...errorResponses([400, 401, 403, 404, 409]),
                },
              },
            },
            "/jobs/{id}/events": {
              get: {
                summary: "The job's timeline (submitted, started, preempted, requeued, finished) and run segments",
                operationId: "getJobEvents",
                parameters: [jobId],
                responses: {
                  "200": jsonAnswer("Timeline"),
                  ...errorResponses([401, 404]),
                },
              },
            },
            "/jobs/{id}/logs": {
              get: {
                summary:
                  "One page of the job's output: its end by default, forward from a cursor (after), or back from one (before)",
                description: `Pages hold at most ${LOG_PAGE_MAX} chunks (default ${LOG_PAGE_DEFAULT}), always in the order printed. To follow a running job, poll with \`after\` set to the last page's \`next\`; \`after=0\` reads from the start; \`before\` set to a page's \`older\` reads what came before it. The control plane keeps the newest TRANCHE_LOG_RETENTION_BYTES of each job (default 64 MiB): \`droppedBytes\` counts the older output dropped. A bad cursor or stream answers 400 naming the parameter.`,
                operationId: "getJobLogs",
                parameters: [jobId, ...logParams],
                responses: {
                  "200": {
                    description: "A page of the log",
                    content: { "application/json": { schema: { $ref: "#/components/schemas/JobLogPage" } } },
                  },
                  ...errorResponses([400, 401, 403, 404]),
                },
              },
            },
            "/jobs/{id}/logs/download": {
              get: {
                summary: "The job's whole kept output as plain text (one stream with ?stream=stdout|stderr)",
                operationId: "downloadJobLogs",
                parameters: [jobId, ...logParams.filter((p) => p.name === "stream")],
                responses: {
                  "200": { description: "The log", content: { "text/plain": { schema: { type: "string" } } } },
                  ...errorResponses([400, 401, 403, 404]),
                },
              },
            },
            "/jobs/{id}/cancel": jobChange(
              "Cancel a job: pending -> CANCELLED; running -> STOPPING (SIGTERM, then SIGKILL after its grace period). Its owner, managers of a subtree its budget lies in, admins",
              "cancelJob",
              "The job after cancelling",
            ),
            "/jobs/{id}/hold": jobChange(
              "Hold a pending job (its owner, managers of a subtree its budget lies in, operators, admins): the scheduler skips it until it is released",
              "holdJob",
            ),
            "/jobs/{id}/release": jobChange(
              "Release a held job back into the queue in its place (as for hold; a hold by a manager, an operator or an admin only by its holder, an operator or an admin)",
              "releaseJob",
            ),
            "/allocation-changes": {
              get: {
                summary:
                  "Allocation changes, newest first (the budgets page's history): who set which share when, and why; ?cluster=, ?path= (a tree node and its subtree), ?limit= (1-500, default 50)",
                operationId: "listAllocationChanges",
                parameters: queryParams(allocationChangesQuery),
                responses: {
                  "200": jsonAnswer("{ changes }"),
                  ...errorResponses([400, 401, 404]),
                },
              },
            },
            "/tokens": jsonGet(
              "Your API tokens (name, first characters, created, last used, expiry, revoked), never the tokens themselves",
              "listTokens",
              "{ tokens }",
              [401],
            ),
            "/tokens/{id}/revoke": {
              post: {
                summary:
                  "Revoke one of your API tokens (admins: anyone's); refused at once everywhere. Tokens are created in the web app only, so a stolen token cannot mint another",
                operationId: "revokeToken",
                parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
                responses: {
                  "200": jsonAnswer("{ token }"),
                  ...errorResponses([400, 401, 403, 404]),
                },
              },
            },
            "/queue/{cluster}": {
              get: {
                summary:
                  "The live queue of a cluster: pending jobs in scheduler order with reasons, running jobs, fair-share ratios",
                operationId: "getQueue",
                parameters: [
                  { name: "cluster", in: "path", required: true, schema: { type: "string" } },
                  {
                    name: "limit",
                    in: "query",
                    required: false,
                    description: `Pending rows to return, from the head of the queue (default ${LIMITS.queueRows}, at most ${LIMITS.queueRowsMax}); the counts cover every pending job`,
                    schema: { type: "integer", minimum: 0, maximum: LIMITS.queueRowsMax },
                  },
                  {
                    name: "budget",
                    in: "query",
                    required: false,
                    description:
                      "Only the jobs of this budget and its subtree (a group's path takes all its budgets), as squeue -A; the counts cover those jobs. 404 for a path that names no budget",
                    schema: { type: "string" },
                  },
                ],
                responses: {
                  "200": jsonAnswer("Queue"),
                  ...errorResponses([400, 401, 404]),
                },
              },
            },
            "/measures/{cluster}": {
              get: {
                summary:
                  "The charts page's measures of a cluster as data: delivery per budget (owed and delivered GPU-hours) over the window, usage against earned entitlement over 7 days, occupancy, queue waits, preemptions",
                operationId: "getMeasures",
                parameters: [
                  { name: "cluster", in: "path", required: true, schema: { type: "string" } },
                  {
                    name: "hours",
                    in: "query",
                    required: false,
                    description: `The window, whole hours back from now (default 24, at most ${MEASURES_MAX_HOURS})`,
                    schema: { type: "integer", minimum: 1, maximum: MEASURES_MAX_HOURS },
                  },
                ],
                responses: {
                  "200": jsonAnswer("Measures"),
                  ...errorResponses([400, 401, 404]),
                },
              },
            },
            "/budgets": jsonGet(
              "The budget tree with allocations per cluster, usage and entitlement",
              "getBudgets",
              "Tree",
              [401],
            ),
            "/clusters": jsonGet("Clusters with GPU counts", "listClusters", "Clusters", [401]),
            "/me": jsonGet("The user the token belongs to", "whoAmI", "User", [401]),
          }),
        ),
      ),
    ),
  };
}
