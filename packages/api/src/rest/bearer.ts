import type { PrismaClient } from "@tranche/db";
import { readApiToken, type Actor } from "@tranche/domain";
import { errorResponse } from "./io";

/** The actor of an `Authorization: Bearer <API token>` header, or the refusal to answer with. */
export async function bearerActor(prisma: PrismaClient, header: string): Promise<Actor | Response> {
  const m = /^Bearer\s+(\S+)$/i.exec(header.trim());
  if (!m) return errorResponse("UNAUTHORIZED", "The Authorization header must be 'Bearer <token>'");
  const token = await readApiToken(prisma, m[1]!);
  if ("actor" in token) return token.actor;
  // 403, not 401: the token is right, and logging in again with it would not help.
  if (token.refused === "disabled")
    return errorResponse("FORBIDDEN", "The account this API token belongs to is disabled; ask an admin to enable it");
  return errorResponse("UNAUTHORIZED", "The API token is unknown, revoked or expired");
}
