import { z } from "zod";

export const createTokenInput = z.object({
  name: z.string().trim().min(1, "give the token a name").max(80, "name is longer than 80 characters"),
  expiresInDays: z.number().int().min(1).max(3650).nullish(),
});
export const revokeTokenInput = z.object({ id: z.string().min(1) });
