import {
  jobActionInput,
  markNotificationsReadInput,
  setDependenciesInput,
  setUserLimitInput,
  setWebhookInput,
} from "@tranche/contracts";
import { errorResponses, jsonAnswer, schema } from "./openapi-parts";

const body = (s: Parameters<typeof schema>[0]) => ({
  required: true,
  content: { "application/json": { schema: schema(s, "input") } },
});
const id = { name: "id", in: "path", required: true, schema: { type: "integer", minimum: 1 } };

/** OpenAPI paths of job-rules-routes.ts: many jobs at once, dependencies, arrays, notifications, webhooks, per-user limits. */
export function withJobRulePaths<P extends Record<string, object>>(paths: P): P & Record<string, object> {
  const more: Record<string, object> = {
    "/jobs/actions": {
      post: {
        summary:
          "Cancel, hold or release many jobs: by ids (each refused one listed with its reason, the others acted on) or by a filter of your jobs (filter.everyone: every job the caller may act on, a manager's also those of the budgets they manage, operators' (hold, release) and admins' anyone's); at most 1,000 jobs per request. dryRun with a filter: the jobs it selects, nothing changed",
        operationId: "actOnJobs",
        requestBody: body(jobActionInput),
        responses: {
          "200": jsonAnswer("{ action, done: [id], refused: [{ id, reason }] }, or with dryRun { action, jobs: [id] }"),
          ...errorResponses([400, 401, 403, 404]),
        },
      },
    },
    "/jobs/{id}/dependencies": {
      put: {
        summary: "Replace a waiting job's dependencies (refused when it would make a cycle)",
        operationId: "setDependencies",
        parameters: [id],
        requestBody: body(setDependenciesInput),
        responses: { "200": jsonAnswer("{ jobId, after }"), ...errorResponses([400, 401, 403, 404, 409]) },
      },
    },
    "/arrays/{id}/cancel": {
      post: {
        summary: "Cancel every task of a job array that has not ended",
        operationId: "cancelArray",
        parameters: [id],
        responses: { "200": jsonAnswer("{ arrayId, cancelled, stopping }"), ...errorResponses([401, 403, 404]) },
      },
    },
    "/arrays/{id}/hold": {
      post: {
        summary: "Hold every waiting task of a job array (running ones go on)",
        operationId: "holdArray",
        parameters: [id],
        responses: { "200": jsonAnswer("{ arrayId, held, running }"), ...errorResponses([401, 403, 404, 409]) },
      },
    },
    "/arrays/{id}/release": {
      post: {
        summary: "Release the held tasks of a job array that the caller may release",
        operationId: "releaseArray",
        parameters: [id],
        responses: { "200": jsonAnswer("{ arrayId, released, heldByOperator }"), ...errorResponses([401, 403, 404, 409]) },
      },
    },
    "/notifications": {
      get: {
        summary: "Your notifications, newest first, with the unread count",
        operationId: "listNotifications",
        parameters: [
          { name: "unread", in: "query", required: false, schema: { type: "boolean" } },
          { name: "limit", in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: 500 } },
        ],
        responses: { "200": jsonAnswer("{ notifications, unread }"), ...errorResponses([400, 401]) },
      },
    },
    "/notifications/read": {
      post: {
        summary: "Mark some (ids) or all of your notifications read",
        operationId: "markNotificationsRead",
        requestBody: body(markNotificationsReadInput),
        responses: { "200": jsonAnswer("{ marked }"), ...errorResponses([400, 401]) },
      },
    },
    "/me/webhook": {
      get: {
        summary: "Your notification webhook, and whether its POSTs are signed (never the secret)",
        operationId: "getWebhook",
        responses: { "200": jsonAnswer("{ url, signed }") },
      },
      put: {
        summary:
          "Set (or with null remove) the address your notifications are POSTed to as JSON; the answer carries its new signing secret, shown only this once",
        operationId: "setWebhook",
        requestBody: body(setWebhookInput),
        responses: { "200": jsonAnswer("{ url, signed, secret }"), ...errorResponses([400, 401]) },
      },
    },
    "/me/webhook/secret": {
      post: {
        summary: "Replace your webhook's signing secret; the answer carries the new one, shown only this once",
        operationId: "newWebhookSecret",
        responses: { "200": jsonAnswer("{ url, signed, secret }"), ...errorResponses([400, 401]) },
      },
    },
    "/budgets/user-limit": {
      put: {
        summary: "Set a budget's per-user GPU limit (its managers and admins; null removes it)",
        operationId: "setUserLimit",
        requestBody: body(setUserLimitInput),
        responses: { "200": jsonAnswer("{ budget, maxGpusPerUser }"), ...errorResponses([400, 401, 403]) },
      },
    },
  };
  return { ...paths, ...more } as P & Record<string, object>;
}
