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
  fieldIssues,
  issuesSentence,
  jobIdInput,
  jobLogsQuery,
  queueQuery,
  listJobsInput,
  submitJobBatchInput,
  submitJobInput,
  text,
} from "@tranche/contracts";
import {
  DomainError,
  cancelJob,
  clusterPolicyView,
  getBudgetTree,
  getJob,
  getJobDetail,
  getJobLogPage,
  getQueue,
  jobLogText,
  listJobs,
  readApiToken,
  submitJob,
  submitJobs,
  type Actor,
} from "@tranche/domain";
import { crossSiteRefusal } from "../same-origin";
import { handleAdminRest } from "./admin-routes";
import { handleJobRulesRest } from "./job-rules-routes";
import { handleSessionRest } from "./session-routes";
import { TooLarge, errorResponse, json, parse, readJson } from "./io";
import { logDownload } from "./log-download";
import { buildOpenApi } from "./openapi";

export interface RestDeps {
  prisma: PrismaClient;
  /** Cookie session of the web app (optional: scripts use bearer tokens). */
  sessionUser?: (req: Request) => Promise<Actor | null>;
  /** Origins of the web app besides the request's own (TRANCHE_PUBLIC_URL behind a proxy). */
  allowedOrigins?: readonly string[];
}

const clusterName = text("cluster").max(LIMITS.keyChars, `cluster is longer than ${LIMITS.keyChars} characters`);

async function authenticate(req: Request, deps: RestDeps): Promise<Actor | Response> {
  const header = req.headers.get("authorization");
  if (header) {
    const m = /^Bearer\s+(\S+)$/i.exec(header.trim());
    if (!m) return errorResponse("UNAUTHORIZED", "The Authorization header must be 'Bearer <token>'");
    const token = await readApiToken(deps.prisma, m[1]!);
    if ("actor" in token) return token.actor;
    // 403, not 401: the token is right, and logging in again with it would not help.
    if (token.refused === "disabled")
      return errorResponse("FORBIDDEN", "The account this API token belongs to is disabled; ask an admin to enable it");
    return errorResponse("UNAUTHORIZED", "The API token is unknown, revoked or expired");
  }
  const session = deps.sessionUser ? await deps.sessionUser(req) : null;
  if (session) {
    const refusal = crossSiteRefusal(req, deps.allowedOrigins);
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
    if (parts.length === 1 && parts[0] === "openapi.json" && method === "GET") {
      return json(buildOpenApi(new URL(req.url).origin + "/api/v1"));
    }
    const auth = await authenticate(req, deps);
    if (auth instanceof Response) return auth;
    const actor = auth;
    const { prisma } = deps;
    const url = new URL(req.url);
    const [head, id, tail] = parts;

    if (head === "me" && parts.length === 1 && method === "GET") return json({ user: actor });
    const rules = await handleJobRulesRest(req, method, parts, actor, prisma);
    if (rules) return rules;
    const session = await handleSessionRest(req, method, parts, actor, prisma);
    if (session) return session;
    if (head === "clusters" && parts.length === 1 && method === "GET") {
      const clusters = await prisma.cluster.findMany({
        orderBy: { name: "asc" },
        include: { nodes: { select: { gpuCount: true, state: true } } },
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
        const q = Object.fromEntries(url.searchParams);
        const input = parse(listJobsInput, {
          ...q,
          ...(q.limit !== undefined ? { limit: Number(q.limit) } : {}),
          ...(q.active !== undefined ? { active: q.active === "true" || q.active === "1" } : {}),
        });
        return json({ jobs: await listJobs(prisma, actor, input) });
      }
      const jobId = parse(jobIdInput, { id }).id;
      if (parts.length === 2 && method === "GET") return json({ job: await getJob(prisma, actor, jobId) });
      if (parts.length === 2 && method === "DELETE") return json({ job: await cancelJob(prisma, actor, jobId) });
      if (parts.length === 3 && tail === "cancel" && method === "POST")
        return json({ job: await cancelJob(prisma, actor, jobId) });
      if (parts.length === 3 && tail === "logs" && method === "GET") {
        const q = parse(jobLogsQuery, Object.fromEntries(url.searchParams));
        return json(await getJobLogPage(prisma, actor, jobId, q));
      }
      if (parts.length === 4 && tail === "logs" && parts[3] === "download" && method === "GET") {
        const { stream } = parse(jobLogsQuery, Object.fromEntries(url.searchParams));
        return logDownload(jobId, stream, await jobLogText(prisma, actor, jobId, stream));
      }
      if (parts.length === 3 && tail === "events" && method === "GET") {
        const d = await getJobDetail(prisma, actor, jobId);
        return json({ job: d.job, events: d.events, segments: d.segments });
      }
    }
    if (head === "queue" && method === "GET" && parts.length <= 2) {
      const cluster = id ?? url.searchParams.get("cluster");
      if (!cluster)
        return errorResponse("BAD_INPUT", "Name a cluster: /api/v1/queue/<cluster>", [
          { path: "cluster", message: "cluster is required" },
        ]);
      const bad = clusterName.safeParse(cluster);
      if (!bad.success) {
        const issues = fieldIssues(bad.error).map((i) => ({ ...i, path: "cluster" }));
        return errorResponse("BAD_INPUT", issuesSentence(issues), issues);
      }
      const { limit } = parse(queueQuery, { limit: url.searchParams.get("limit") });
      return json(await getQueue(prisma, cluster, { limit }));
    }
    if (head === "budgets" && parts.length === 1 && method === "GET") return json(await getBudgetTree(prisma, actor));
    const admin = await handleAdminRest(req, method, parts, actor, prisma);
    if (admin) return admin;
    return errorResponse("NOT_FOUND", `No such endpoint: ${method} /api/v1${path}`);
  } catch (e) {
    if (e instanceof ZodError) {
      // A batch of 1,000 bad items would make a very long message: it names the first ten, counts the rest.
      const issues = fieldIssues(e);
      return errorResponse("BAD_INPUT", issuesSentence(issues), issues);
    }
    if (e instanceof TooLarge) return errorResponse("TOO_LARGE", e.message, [{ path: "", message: e.message }]);
    if (e instanceof DomainError || (e instanceof Error && e.name === "DomainError")) {
      const d = e as DomainError;
      return errorResponse(d.code, d.message, d.field ? [{ path: d.field, message: d.message }] : undefined);
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
