import { z } from "zod";
import { strictObject, text, typeError } from "./input";

export const createTokenInput = strictObject(
  {
    name: text("name").trim().min(1, "give the token a name").max(80, "name is longer than 80 characters"),
    expiresInDays: z
      .number({ error: typeError("expiresInDays", "expiresInDays must be a number") })
      .int("expiresInDays must be a whole number")
      .min(1, "expiresInDays must be between 1 and 3650")
      .max(3650, "expiresInDays must be between 1 and 3650")
      .nullish(),
  },
  "a new token",
);
export const revokeTokenInput = strictObject({ id: text("id").min(1).max(200) }, "a token reference");

/** An API token as its owner sees it (the web app's list, REST GET /tokens, `tranche tokens`): never the token. */
export interface ApiTokenView {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
}
