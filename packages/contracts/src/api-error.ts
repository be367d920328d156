import { z } from "zod";

/** The JSON body of every REST error (400, 401, 403, 404, 409, 413, 429...). */
export const apiError = z.object({
  error: z.object({
    code: z.enum([
      "UNAUTHORIZED",
      "FORBIDDEN",
      "NOT_FOUND",
      "BAD_INPUT",
      "CONFLICT",
      "TOO_LARGE",
      "TOO_MANY_REQUESTS",
      "UNAVAILABLE",
      "INTERNAL",
    ]),
    message: z.string(),
    issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  }),
});
export type ApiError = z.infer<typeof apiError>;
