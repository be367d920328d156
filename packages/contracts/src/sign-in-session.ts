import { z } from "zod";
import { strictObject, typeError } from "./input";

// A signed-in session's id and a user's id are ids the server made (cuids): letters, digits, - and _.
const id = (field: string, what: string) =>
  z
    .string({ error: typeError(field, `${field} must be ${what}`) })
    .trim()
    .min(1, `${field} is required`)
    .max(64, `${field} must be ${what}`)
    .regex(/^[A-Za-z0-9_-]+$/, `${field} must be ${what}`);

/** One signed-in session of the caller's own. */
export const signInSessionInput = strictObject({ id: id("id", "a signed-in session's id") }, "a signed-in session");

/** A user's signed-in sessions (admins). */
export const userSignInsInput = strictObject({ userId: id("userId", "a user's id") }, "a user's signed-in sessions");

/** One signed-in session of a user (admins). */
export const userSignInSessionInput = strictObject(
  { userId: id("userId", "a user's id"), id: id("id", "a signed-in session's id") },
  "a user's signed-in session",
);
