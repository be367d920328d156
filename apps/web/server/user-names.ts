import { APIError } from "better-auth/api";
import type { BetterAuthOptions } from "better-auth";
import { LIMITS, personNameProblem } from "@tranche/contracts";

/**
 * Display names that reach the database through better-auth. Admins set names over REST, tRPC, the CLI
 * and `npm run admin` (contracts' personName); better-auth writes them on self sign-up (when
 * TRANCHE_ALLOW_SIGNUP=1), on a first single sign-on (the provider's name) and on its update-user route,
 * which authOptions closes (only admins rename people). A name a person typed is refused with 400 naming
 * the field; a provider's name is made to fit, so a long name at the provider does not lock anyone out.
 */

/** better-auth routes where the name is what the person typed: refused when it does not fit. */
const TYPED_NAME_PATHS = new Set(["/sign-up/email", "/update-user"]);

/**
 * A provider's name made to fit personName: control characters dropped, those that reorder the text
 * around them removed, trimmed, cut to 100 characters.
 */
export function tidyPersonName(raw: unknown, email: unknown): string {
  const clean = (s: string) =>
    s
      // eslint-disable-next-line no-control-regex -- the control characters are what this removes
      .replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ")
      .replace(/[\u202a-\u202e\u2066-\u2069]+/g, "")
      .trim();
  const name = clean(typeof raw === "string" ? raw : "");
  const fallback = clean(typeof email === "string" ? (email.split("@")[0] ?? "") : "") || "user";
  return [...(name || fallback)].slice(0, LIMITS.personNameChars).join("").trim();
}

/**
 * better-auth's profile picture, which no page shows: kept only as an http(s) address of at most 2 KiB,
 * else dropped, so sign-up cannot store megabytes in a field every session read carries.
 */
export function tidyImage(raw: unknown): string | null {
  return typeof raw === "string" && raw.length <= 2048 && /^https?:\/\//i.test(raw) ? raw : null;
}

type UserData = Record<string, unknown>;

function checkName(data: UserData, path: string | undefined): { data: UserData } | undefined {
  const image = "image" in data && data.image != null ? { image: tidyImage(data.image) } : {};
  if (!("name" in data) || data.name === undefined) return "image" in image ? { data: { ...data, ...image } } : undefined;
  if (path !== undefined && TYPED_NAME_PATHS.has(path)) {
    const problem = personNameProblem(data.name);
    if (problem) throw APIError.fromStatus("BAD_REQUEST", { message: problem, code: "INVALID_NAME" });
    return { data: { ...data, ...image, name: (data.name as string).trim() } };
  }
  return { data: { ...data, ...image, name: tidyPersonName(data.name, data.email) } };
}

type UserHooks = NonNullable<NonNullable<BetterAuthOptions["databaseHooks"]>["user"]>;
type CreateBefore = NonNullable<NonNullable<UserHooks["create"]>["before"]>;
type UpdateBefore = NonNullable<NonNullable<UserHooks["update"]>["before"]>;

/** better-auth's user before-hooks that hold every name it writes to personName. */
export const userNameHooks: { create: { before: CreateBefore }; update: { before: UpdateBefore } } = {
  create: { before: async (user, context) => checkName(user as UserData, context?.path) },
  update: { before: async (user, context) => checkName(user as UserData, context?.path) },
};
