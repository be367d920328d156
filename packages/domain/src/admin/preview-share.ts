import type { PrismaClient } from "@tranche/db";
import type { Actor } from "../auth/actor";
import type { SharePreview } from "@tranche/contracts";
import { previewAllocations } from "../budgets/what-if";
import { refusedShare, shareAsAllocations } from "./clusters";

/**
 * POST /budgets/{path}/allocation/what-if (managers in their subtree, admins): the what-if preview
 * of setting one node's share, as the budgets page's drag previews it (previewAllocations); nothing
 * is stored.
 */
export async function previewShare(
  prisma: PrismaClient,
  actor: Actor,
  path: string,
  input: { cluster: string; share: number; limit: number },
): Promise<SharePreview> {
  const { node, ppm, change } = await shareAsAllocations(prisma, path, input);
  const preview = await previewAllocations(prisma, actor, { ...change, limit: input.limit }).catch(refusedShare);
  return { ...preview, path: node.path, share: ppm / 1_000_000 };
}
