import type { PrismaClient } from "@tranche/db";
import { notFound } from "./errors";

/**
 * A cluster's id by its name, or 404 naming it: for the routes that take a cluster by name, where an
 * unknown one must be an error and not an empty answer.
 */
export async function clusterIdNamed(prisma: PrismaClient, name: string): Promise<string> {
  const cluster = await prisma.cluster.findUnique({ where: { name }, select: { id: true } });
  if (!cluster) throw notFound(`There is no cluster '${name}'`);
  return cluster.id;
}
