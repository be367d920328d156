import { createHash, randomBytes } from "node:crypto";
import type { PrismaClient } from "@tranche/db";

/**
 * Node credentials and enrollment tokens. Both are random secrets shown once; the database keeps only
 * their SHA-256 (they are long random strings, so a plain hash is enough — no password stretching).
 */
export const hashSecret = (secret: string): string => createHash("sha256").update(secret).digest("hex");

export const newNodeCredential = (): string => `tnc_${randomBytes(32).toString("base64url")}`;
export const newEnrollmentToken = (): string => `tet_${randomBytes(24).toString("base64url")}`;

/**
 * Issue one-time enrollment tokens for a cluster (an operator action; `npm start` issues them for the
 * demo nodes). A token bound to a node name only enrolls that node. Returns the plain tokens.
 */
export async function issueEnrollmentTokens(
  prisma: PrismaClient,
  clusterId: string,
  nodeNames: (string | null)[],
  opts: { ttlSeconds?: number; createdBy?: string | null } = {},
): Promise<{ nodeName: string | null; token: string }[]> {
  const expiresAt = new Date(Date.now() + (opts.ttlSeconds ?? 3600) * 1000);
  const out = nodeNames.map((nodeName) => ({ nodeName, token: newEnrollmentToken() }));
  await prisma.enrollmentToken.createMany({
    data: out.map((t) => ({
      clusterId,
      tokenHash: hashSecret(t.token),
      nodeName: t.nodeName,
      expiresAt,
      createdBy: opts.createdBy ?? null,
    })),
  });
  return out;
}

/** Issue (or rotate) a node's credential directly: the operator path when no enrollment token is used. */
export async function issueNodeCredential(prisma: PrismaClient, nodeId: string): Promise<string> {
  const credential = newNodeCredential();
  await prisma.node.update({ where: { id: nodeId }, data: { agentCredentialHash: hashSecret(credential) } });
  return credential;
}
