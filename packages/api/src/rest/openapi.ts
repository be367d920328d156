import {
  LIMITS,
  MAX_BATCH_JOBS,
  apiError,
  formatBytes,
  jobView,
  listJobsInput,
  submitJobBatchInput,
  submitJobInput,
} from "@tranche/contracts";
import { adminSchemas, withAdminPaths } from "./openapi-admin";
import { withJobRulePaths } from "./openapi-job-rules";
import { errorResponses, schema } from "./openapi-parts";

/** OpenAPI 3.1 for /api/v1, generated from the same zod schemas the routes parse with. */
export function buildOpenApi(serverUrl = "/api/v1") {
  const listParams = Object.entries((schema(listJobsInput, "input") as { properties: Record<string, unknown> }).properties).map(
    ([name, s]) => ({
      name,
      in: "query",
      required: false,
      schema: s,
    }),
  );
  const jobId = { name: "id", in: "path", required: true, schema: { type: "integer", minimum: 1 } };
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
        ...adminSchemas(),
      },
    },
    paths: withJobRulePaths(
      withAdminPaths({
        "/jobs": {
          get: {
            summary: "List jobs (yours by default; scope=all for managers, operators and admins)",
            operationId: "listJobs",
            parameters: listParams,
            responses: {
              "200": {
                description: "Jobs, newest first",
                content: {
                  "application/json": {
                    schema: {
                      type: "object",
                      properties: { jobs: { type: "array", items: { $ref: "#/components/schemas/Job" } } },
                      required: ["jobs"],
                    },
                  },
                },
              },
              ...errorResponses([400, 401, 403]),
            },
          },
          post: {
            summary: "Submit a job",
            description: `Strict: an unknown field answers 400 naming it. Limits: body ${formatBytes(LIMITS.requestBytes)} (413), command ${LIMITS.commandChars.toLocaleString("en-US")} characters, name ${LIMITS.nameChars}, env at most ${LIMITS.envVars} variables of at most ${formatBytes(LIMITS.envValueBytes)} each and ${formatBytes(LIMITS.envTotalBytes)} in all; no string may hold NUL (\\u0000). Idempotency keys are per user.`,
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
              "201": {
                description: "The jobs, PENDING, in the order submitted",
                content: {
                  "application/json": {
                    schema: {
                      type: "object",
                      properties: { jobs: { type: "array", items: { $ref: "#/components/schemas/Job" } } },
                      required: ["jobs"],
                    },
                  },
                },
              },
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
              "200": {
                description: "The job",
                content: {
                  "application/json": { schema: { type: "object", properties: { job: { $ref: "#/components/schemas/Job" } } } },
                },
              },
              ...errorResponses([401, 404]),
            },
          },
        },
        "/jobs/{id}/events": {
          get: {
            summary: "The job's timeline (submitted, started, preempted, requeued, finished) and run segments",
            operationId: "getJobEvents",
            parameters: [jobId],
            responses: {
              "200": { description: "Timeline", content: { "application/json": { schema: { type: "object" } } } },
              ...errorResponses([401, 404]),
            },
          },
        },
        "/jobs/{id}/cancel": {
          post: {
            summary: "Cancel a job: pending -> CANCELLED; running -> STOPPING (SIGTERM, then SIGKILL after its grace period)",
            operationId: "cancelJob",
            parameters: [jobId],
            responses: {
              "200": {
                description: "The job after cancelling",
                content: {
                  "application/json": { schema: { type: "object", properties: { job: { $ref: "#/components/schemas/Job" } } } },
                },
              },
              ...errorResponses([401, 403, 404, 409]),
            },
          },
        },
        "/queue/{cluster}": {
          get: {
            summary: "The live queue of a cluster: pending jobs in scheduler order with reasons, running jobs, fair-share ratios",
            operationId: "getQueue",
            parameters: [{ name: "cluster", in: "path", required: true, schema: { type: "string" } }],
            responses: {
              "200": { description: "Queue", content: { "application/json": { schema: { type: "object" } } } },
              ...errorResponses([401, 404]),
            },
          },
        },
        "/budgets": {
          get: {
            summary: "The budget tree with allocations per cluster, usage and entitlement",
            operationId: "getBudgets",
            responses: {
              "200": { description: "Tree", content: { "application/json": { schema: { type: "object" } } } },
              ...errorResponses([401]),
            },
          },
        },
        "/clusters": {
          get: {
            summary: "Clusters with GPU counts",
            operationId: "listClusters",
            responses: {
              "200": { description: "Clusters", content: { "application/json": { schema: { type: "object" } } } },
              ...errorResponses([401]),
            },
          },
        },
        "/me": {
          get: {
            summary: "The user the token belongs to",
            operationId: "whoAmI",
            responses: {
              "200": { description: "User", content: { "application/json": { schema: { type: "object" } } } },
              ...errorResponses([401]),
            },
          },
        },
      }),
    ),
  };
}
