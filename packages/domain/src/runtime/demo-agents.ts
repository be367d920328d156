import { IN_SERVICE } from "../nodes/in-service";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PrismaClient } from "@tranche/db";
import { hashSecret, issueEnrollmentTokens } from "./credentials";

/**
 * `npm start`'s fake node agents: make sure every node of every cluster can authenticate. A node whose
 * agent folder holds a credential the database recognises needs nothing; any other node (first start,
 * or a database that was reset) gets a fresh one-time enrollment token, written to
 * `<dir>/<cluster>.tokens` as "NODE_NAME TOKEN" lines for `--enrollment-token-file`.
 * Returns, per cluster, its node names (sorted by their index) and the token file.
 */
export async function prepareDemoAgents(
  prisma: PrismaClient,
  dir: string,
): Promise<{ cluster: string; nodes: string[]; prefix: string; tokenFile: string; issued: number }[]> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const clusters = await prisma.cluster.findMany({
    include: { nodes: { where: IN_SERVICE, select: { name: true, agentCredentialHash: true } } },
    orderBy: { name: "asc" },
  });
  const out = [];
  for (const c of clusters) {
    const prefix = `${c.name}-`;
    const nodes = c.nodes
      .filter((n) => n.name.startsWith(prefix) && /^\d+$/.test(n.name.slice(prefix.length)))
      .sort((a, b) => Number(a.name.slice(prefix.length)) - Number(b.name.slice(prefix.length)));
    const needs = nodes.filter((n) => {
      const file = join(dir, n.name, "credential");
      if (!existsSync(file) || !n.agentCredentialHash) return true;
      return hashSecret(readFileSync(file, "utf8").trim()) !== n.agentCredentialHash;
    });
    const tokens = needs.length
      ? await issueEnrollmentTokens(
          prisma,
          c.id,
          needs.map((n) => n.name),
          { ttlSeconds: 24 * 3600, createdBy: null },
        )
      : [];
    const tokenFile = join(dir, `${c.name}.tokens`);
    writeFileSync(tokenFile, tokens.map((t) => `${t.nodeName} ${t.token}`).join("\n") + "\n", { mode: 0o600 });
    out.push({ cluster: c.name, nodes: nodes.map((n) => n.name), prefix, tokenFile, issued: tokens.length });
  }
  return out;
}
