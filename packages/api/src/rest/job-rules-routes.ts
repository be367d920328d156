import type { PrismaClient } from "@tranche/db";
import {
  jobActionInput,
  jobIdInput,
  listNotificationsInput,
  markNotificationsReadInput,
  setDependenciesInput,
  setUserLimitInput,
  setWebhookInput,
  updateJobInput,
} from "@tranche/contracts";
import {
  actOnJobs,
  cancelArray,
  getWebhook,
  holdArray,
  listNotifications,
  markNotificationsRead,
  newWebhookSecret,
  releaseArray,
  requireRole,
  setDependencies,
  setUserLimit,
  setWebhook,
  updateArray,
  updateJob,
  type Actor,
} from "@tranche/domain";
import { json, noQuery, parse, queryBoolean, queryNumber, queryOf, readJson } from "./io";

/**
 * REST for job updates, many jobs at once, arrays, dependencies, notifications, webhooks and per-user limits (handler.ts routes the
 * rest). Returns null for any other path.
 */
export async function handleJobRulesRest(
  req: Request,
  method: string,
  parts: string[],
  actor: Actor,
  prisma: PrismaClient,
): Promise<Response | null> {
  const [head, id, tail] = parts;
  if (head === "jobs" && parts.length === 2 && id === "actions" && method === "POST")
    return json(await actOnJobs(prisma, actor, parse(jobActionInput, await readJson(req))));
  if (head === "jobs" && parts.length === 3 && tail === "dependencies" && method === "PUT") {
    const jobId = parse(jobIdInput, { id }).id;
    const input = parse(setDependenciesInput, await readJson(req));
    return json({ jobId, after: await setDependencies(prisma, actor, jobId, input.after) });
  }
  // A waiting job changed in place (or, with array: true, every waiting task of an array).
  if (head === "jobs" && parts.length === 2 && method === "PATCH") {
    const jobId = parse(jobIdInput, { id }).id;
    const input = parse(updateJobInput, await readJson(req));
    return json(input.array ? await updateArray(prisma, actor, jobId, input) : await updateJob(prisma, actor, jobId, input));
  }
  if (head === "arrays" && id !== undefined) {
    const arrayId = parse(jobIdInput, { id }).id;
    if ((parts.length === 2 && method === "DELETE") || (parts.length === 3 && tail === "cancel" && method === "POST"))
      return json(await cancelArray(prisma, actor, arrayId));
    if (parts.length === 3 && tail === "hold" && method === "POST") return json(await holdArray(prisma, actor, arrayId));
    if (parts.length === 3 && tail === "release" && method === "POST") return json(await releaseArray(prisma, actor, arrayId));
  }
  if (head === "notifications") {
    if (parts.length === 1 && method === "GET") {
      const q = queryOf(req);
      const input = parse(listNotificationsInput, { ...q, unread: queryBoolean(q.unread), limit: queryNumber(q.limit) });
      return json(await listNotifications(prisma, actor, input));
    }
    if (parts.length === 2 && id === "read" && method === "POST") {
      const input = parse(markNotificationsReadInput, await readJson(req));
      return json(await markNotificationsRead(prisma, actor, input.ids));
    }
  }
  if (head === "me" && id === "webhook" && parts.length === 2) {
    if (method === "GET") {
      noQuery(req, "the webhook's query");
      return json(await getWebhook(prisma, actor));
    }
    if (method === "PUT") return json(await setWebhook(prisma, actor, parse(setWebhookInput, await readJson(req)).url));
  }
  if (head === "me" && id === "webhook" && tail === "secret" && parts.length === 3 && method === "POST")
    return json(await newWebhookSecret(prisma, actor));
  if (head === "budgets" && id === "user-limit" && parts.length === 2 && method === "PUT") {
    // The role before the body (as on the admin routes): a researcher learns nothing of its shape.
    requireRole(actor, ["MANAGER"], "set a budget's per-user limit");
    return json(await setUserLimit(prisma, actor, parse(setUserLimitInput, await readJson(req))));
  }
  return null;
}
