import { ZodError } from "zod";
import {
  DATABASE_UNAVAILABLE_SENTENCE,
  duplicateSentence,
  isDatabaseUnavailable,
  uniqueViolationFields,
  type PrismaClient,
} from "@tranche/db";
import {
  LIMITS,
  LOG_PAGE_DEFAULT,
  allocationChangesQuery,
  fieldIssues,
  issuesSentence,
  jobIdInput,
  jobLogDownloadQuery,
  jobLogsQuery,
  measuresQuery,
  queueQuery,
  revokeTokenInput,
  listJobsInput,
  submitJobBatchInput,
  submitJobInput,
  addressedTo,
  text,
} from "@tranche/contracts";
import {
  DomainError,
  cancelJob,
  clusterPolicyView,
  getBudgetTree,
  getChartData,
  getJob,
  getJobDetail,
  getJobLogPage,
  getQueue,
  IN_SERVICE,
  jobLogText,
  listAllocationChanges,
  listApiTokens,
  listJobs,
  listJobRows,
  revokeApiToken,
  setJobHeld,
  submitJob,
  submitJobs,
  type Actor,
  type WhatIfLimiter,
} from "@tranche/domain";
import { crossSiteRefusal } from "../same-origin";
import { handleAdminRest } from "./admin-routes";
import { handleJobRulesRest } from "./job-rules-routes";
import { handleNodeRest } from "./node-routes";
import { bearerActor } from "./bearer";
import { handleSessionRest, isSessionOpen, redirect, type SessionOrigins } from "./session-routes";
import { serveSessionsHost } from "./sessions-host";
import { TooLarge, errorResponse, json, noQuery, parse, pathSegment, queryBoolean, queryNumber, queryOf, readJson } from "./io";
import { TooManyRequests } from "../too-many-requests";
import { enterCalls, enterJobRows, enterLogChunks, enterQueueRows } from "../request-gate";
import { logDownload } from "./log-download";
import { buildOpenApi } from "./openapi";

export interface RestDeps {
  prisma: PrismaClient;
  /** Cookie session of the web app (optional: scripts use bearer tokens). */
  sessionUser?: (req: Request) => Promise<Actor | null>;
  /** Origins of the web app besides the request's own (TRANCHE_PUBLIC_URL behind a proxy). */
  allowedOrigins?: readonly string[];
  /** The web app's address and the sessions host (unset: interactive sessions are not served). */
  origins?: SessionOrigins;
  /** What-if previews' limiter; unset: the web process's own (tests bring one with their clock). */
  whatIfLimiter?: WhatIfLimiter;
}

const clusterName = text("cluster").max(LIMITS.keyChars, `cluster is longer than ${LIMITS.keyChars} characters`);

/**
 * The caller: a bearer API token, or the web app's cookie session. `crossSite`: a cookie session may
 * come from another site (the sessions host sending its owner back to open a session, which only
 * hands out a ticket bound to that browser).
 */
async function authenticate(req: Request, deps: RestDeps, crossSite = false): Promise<Actor | Response> {
  const header = req.headers.get("authorization");
  if (header) return bearerActor(deps.prisma, header);
  const session = deps.sessionUser ? await deps.sessionUser(req) : null;
  if (session) {
    const refusal = crossSite ? null : crossSiteRefusal(req, deps.allowedOrigins);
    return refusal ? errorResponse("FORBIDDEN", refusal) : session;
  }
  return errorResponse(
    "UNAUTHORIZED",
    "Authentication required: send 'Authorization: Bearer <token>' (create a token in the web app under API tokens)",
  );
}

/**
 * REST /api/v1 for scripts and the CLI. Thin: authenticate, parse with the shared zod schemas, call
 * the domain use-case, map errors to status codes with a JSON body { error: { code, message } }.
 * `path` is what follows /api/v1, e.g. "/jobs/12/cancel".
 */
export async function handleRest(req: Request, path: string, deps: RestDeps): Promise<Response> {
  const method = req.method.toUpperCase();
  const parts = path.split("/").filter(Boolean);
  try {
    for (const part of parts) pathSegment(part);
    // The sessions host answers for the proxy and nothing else, with its own sign-in.
    if (deps.origins?.sessions && addressedTo(req.headers, deps.origins.sessions))
      return await serveSessionsHost(req, method, deps.prisma, { app: deps.origins.app, sessions: deps.origins.sessions });
    if (parts.length === 1 && parts[0] === "openapi.json" && method === "GET") {
      noQuery(req, "the OpenAPI document's query");
      return json(buildOpenApi(new URL(req.url).origin + "/api/v1"));
    }
    const opening = isSessionOpen(method, parts);
    const auth = await authenticate(req, deps, opening);
    // Opening a session signed out: to the sign-in page, which then shows the session's page (where
    // "Open the session" starts again; the hand-off's state may be stale by then).
    if (auth instanceof Response && opening && auth.status === 401 && !req.headers.has("authorization")) {
      const id = jobIdInput.safeParse({ id: parts[1] });
      const page = id.success ? `?next=${encodeURIComponent(`/jobs/${id.data.id}`)}` : "";
      return redirect(`${deps.origins?.app ?? ""}/login${page}`);
    }
    if (auth instanceof Response) return auth;
    const actor = auth;
    const leave = enterCalls(actor.id);
    // An answer that streams on after this returns (a log download) keeps the call's place until it ends.
    let kept = false;
    const keepPlace = () => ((kept = true), leave);
    try {
      const { prisma } = deps;
      const [head, id, tail] = parts;

      if (head === "me" && parts.length === 1 && method === "GET") {
        noQuery(req, "the signed-in user's query");
        return json({ user: actor });
      }
      const rules = await handleJobRulesRest(req, method, parts, actor, prisma);
      if (rules) return rules;
      const session = await handleSessionRest(req, method, parts, actor, prisma, deps.origins);
      if (session) return session;
      const nodes = await handleNodeRest(req, method, parts, actor, prisma);
      if (nodes) return nodes;
      if (head === "clusters" && parts.length === 1 && method === "GET") {
        noQuery(req, "the cluster list's query");
        const clusters = await prisma.cluster.findMany({
          orderBy: { name: "asc" },
          include: { nodes: { where: IN_SERVICE, select: { gpuCount: true, state: true } } },
        });
        return json({
          clusters: clusters.map((c) => ({
            name: c.name,
            gpuType: c.gpuType,
            nodes: c.nodes.length,
            gpus: c.nodes.reduce((s, n) => s + n.gpuCount, 0),
            readyGpus: c.nodes.filter((n) => n.state === "READY").reduce((s, n) => s + n.gpuCount, 0),
            maxMinRuntime: c.maxMinRuntimeSec,
            policy: clusterPolicyView(c),
          })),
        });
      }
      if (head === "jobs") {
        if (parts.length === 1 && method === "POST") {
          const input = parse(submitJobInput, await readJson(req));
          return json({ job: await submitJob(prisma, actor, input) }, 201);
        }
        if (parts.length === 2 && id === "batch" && method === "POST") {
          const input = parse(submitJobBatchInput, await readJson(req, { limit: LIMITS.batchRequestBytes }));
          return json({ jobs: await submitJobs(prisma, actor, input.jobs) }, 201);
        }
        if (parts.length === 1 && method === "GET") {
          const q = queryOf(req);
          const input = parse(listJobsInput, {
            ...q,
            limit: queryNumber(q.limit),
            array: queryNumber(q.array),
            active: queryBoolean(q.active),
          });
          const leaveRows = enterJobRows(actor.id, input.limit);
          try {
            // arrays=rows: each array one row of `arrays`; without it, every task a job of `jobs`, as before.
            return json(
              input.arrays === "rows" ? await listJobRows(prisma, actor, input) : { jobs: await listJobs(prisma, actor, input) },
            );
          } finally {
            leaveRows();
          }
        }
        const jobId = parse(jobIdInput, { id }).id;
        if (parts.length === 2 && method === "GET") {
          noQuery(req, "a job's query");
          return json({ job: await getJob(prisma, actor, jobId) });
        }
        if (parts.length === 2 && method === "DELETE") return json({ job: await cancelJob(prisma, actor, jobId) });
        if (parts.length === 3 && tail === "cancel" && method === "POST")
          return json({ job: await cancelJob(prisma, actor, jobId) });
        // Hold (pending -> HELD: the scheduler skips it) and release: its owner, managers of its budget, operators and admins.
        if (parts.length === 3 && (tail === "hold" || tail === "release") && method === "POST")
          return json({ job: await setJobHeld(prisma, actor, jobId, tail === "hold") });
        if (parts.length === 3 && tail === "logs" && method === "GET") {
          const q = parse(jobLogsQuery, queryOf(req));
          const leaveChunks = enterLogChunks(actor.id, q.limit ?? LOG_PAGE_DEFAULT);
          try {
            return json(await getJobLogPage(prisma, actor, jobId, q));
          } finally {
            leaveChunks();
          }
        }
        if (parts.length === 4 && tail === "logs" && parts[3] === "download" && method === "GET") {
          const { stream } = parse(jobLogDownloadQuery, queryOf(req));
          const log = await jobLogText(prisma, actor, jobId, stream);
          return logDownload(jobId, stream, log, keepPlace());
        }
        if (parts.length === 3 && tail === "events" && method === "GET") {
          noQuery(req, "the job timeline's query");
          const d = await getJobDetail(prisma, actor, jobId);
          return json({ job: d.job, events: d.events, segments: d.segments });
        }
      }
      if (head === "queue" && method === "GET" && parts.length <= 2) {
        const params = queryOf(req);
        // The cluster is named in the path, or by ?cluster= (which then is no parameter of the queue's query).
        const cluster = id ?? params.cluster;
        if (id === undefined) delete params.cluster;
        if (!cluster)
          return errorResponse("BAD_INPUT", "Name a cluster: /api/v1/queue/<cluster>", [
            { path: "cluster", message: "cluster is required" },
          ]);
        const bad = clusterName.safeParse(cluster);
        if (!bad.success) {
          const issues = fieldIssues(bad.error).map((i) => ({ ...i, path: "cluster" }));
          return errorResponse("BAD_INPUT", issuesSentence(issues), issues);
        }
        const { limit, budget } = parse(queueQuery, params);
        const leaveRows = enterQueueRows(actor.id, limit ?? LIMITS.queueRows);
        try {
          return json(await getQueue(prisma, cluster, { limit, ...(budget === undefined ? {} : { budget }) }));
        } finally {
          leaveRows();
        }
      }
      // The charts page's measures as data: delivery per budget over the window, usage against what each
      // budget earned, occupancy and waits; a manager's report (`tranche report`, or a script's export).
      if (head === "measures" && parts.length === 2 && method === "GET") {
        const cluster = clusterName.safeParse(id);
        if (!cluster.success) {
          const issues = fieldIssues(cluster.error).map((i) => ({ ...i, path: "cluster" }));
          return errorResponse("BAD_INPUT", issuesSentence(issues), issues);
        }
        const { hours } = parse(measuresQuery, queryOf(req));
        return json(await getChartData(prisma, cluster.data, hours));
      }
      if (head === "budgets" && parts.length === 1 && method === "GET") {
        noQuery(req, "the budget tree's query");
        return json(await getBudgetTree(prisma, actor));
      }
      // Your API tokens, without their secrets, and revoking one (a leaked one, from the machine that
      // still works). Not creating one: a stolen token must not mint another that outlives its revoke.
      // Who changed which allocation when (the budgets page's history), newest first.
      if (head === "allocation-changes" && parts.length === 1 && method === "GET") {
        const q = parse(allocationChangesQuery, queryOf(req));
        return json({ changes: await listAllocationChanges(prisma, q) });
      }
      if (head === "tokens" && parts.length === 1 && method === "GET") {
        noQuery(req, "the token list's query");
        return json({ tokens: await listApiTokens(prisma, actor) });
      }
      if (head === "tokens" && parts.length === 3 && tail === "revoke" && method === "POST")
        return json({ token: await revokeApiToken(prisma, actor, parse(revokeTokenInput, { id }).id) });
      const admin = await handleAdminRest(req, method, parts, actor, prisma, deps.whatIfLimiter);
      if (admin) return admin;
      return errorResponse("NOT_FOUND", `No such endpoint: ${method} /api/v1${path}`);
    } finally {
      if (!kept) leave();
    }
  } catch (e) {
    if (e instanceof ZodError) {
      // A batch of 1,000 bad items would make a very long message: it names the first ten, counts the rest.
      const issues = fieldIssues(e);
      return errorResponse("BAD_INPUT", issuesSentence(issues), issues);
    }
    if (e instanceof TooLarge) return errorResponse("TOO_LARGE", e.message, [{ path: "", message: e.message }]);
    if (e instanceof TooManyRequests)
      return json({ error: { code: "TOO_MANY_REQUESTS", message: e.message } }, 429, { "retry-after": String(e.retryAfterSec) });
    if (e instanceof DomainError || (e instanceof Error && e.name === "DomainError")) {
      const d = e as DomainError;
      return errorResponse(d.code, d.message, d.issues ?? (d.field ? [{ path: d.field, message: d.message }] : undefined));
    }
    const duplicate = uniqueViolationFields(e);
    if (duplicate) {
      const message = duplicateSentence(duplicate);
      return errorResponse("CONFLICT", message, [{ path: duplicate.at(-1) ?? "", message }]);
    }
    if (isDatabaseUnavailable(e)) {
      console.error("REST", method, path, "the database cannot be reached:", e instanceof Error ? e.message : e);
      return errorResponse("UNAVAILABLE", DATABASE_UNAVAILABLE_SENTENCE);
    }
    console.error("REST", method, path, e);
    return errorResponse("INTERNAL", "Something went wrong on the server; nothing was changed");
  }
}
