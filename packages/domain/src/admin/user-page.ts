import type { PrismaClient } from "@tranche/db";
import { userPageInput, type UserPageInput } from "@tranche/contracts";
import { requireRole, type Actor } from "../auth/actor";
import { userView, type UserView } from "./users";

export interface UserPage {
  users: UserView[];
  /** How many users match `q` (all users when it is empty). */
  total: number;
  offset: number;
}

// LIKE's own characters, made literal: a search for "a_b" or "50%" finds those characters, not a pattern.
const literal = (q: string) => q.replace(/[\\%_]/g, (c) => "\\" + c);

/**
 * One page of the Users page (admins only): users whose name or e-mail holds `q`, ignoring case, in the
 * list's order (admins first, then by e-mail), and how many match in all. A lab has hundreds of people.
 */
export async function listUserPage(prisma: PrismaClient, actor: Actor, input: UserPageInput): Promise<UserPage> {
  requireRole(actor, ["ADMIN"], "list users");
  const { q, limit, offset } = userPageInput.parse(input);
  const like = literal(q);
  const where = q
    ? {
        OR: [
          { name: { contains: like, mode: "insensitive" as const } },
          { email: { contains: like, mode: "insensitive" as const } },
        ],
      }
    : {};
  const [rows, total] = await Promise.all([
    prisma.user.findMany({
      where,
      orderBy: [{ role: "desc" }, { email: "asc" }],
      skip: offset,
      take: limit,
      include: { accounts: { where: { providerId: "credential" }, select: { id: true } } },
    }),
    prisma.user.count({ where }),
  ]);
  return { users: rows.map((u) => userView(u, u.accounts.length > 0)), total, offset };
}
