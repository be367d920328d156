import { z } from "zod";

// Pieces of the OpenAPI document shared by the job routes and the admin routes.

export const schema = (s: z.ZodType, io: "input" | "output") =>
  z.toJSONSchema(s, { io, target: "draft-2020-12", unrepresentable: "any" });

/** The query parameters of a GET, one per field of the zod object its route parses the query with. */
export const queryParams = (s: z.ZodType) =>
  Object.entries((schema(s, "input") as { properties: Record<string, unknown> }).properties).map(([name, field]) => ({
    name,
    in: "query",
    required: false,
    schema: field,
  }));

/** A 200 (or 201) answer that is one JSON object, described in words. */
export const jsonAnswer = (description: string) => ({
  description,
  content: { "application/json": { schema: { type: "object" } } },
});

export const errorResponses = (codes: number[]) =>
  Object.fromEntries(
    codes.map((c) => [
      String(c),
      {
        description:
          {
            400: "Bad input (the message names the field)",
            401: "No or invalid bearer token",
            403: "Not allowed for this user",
            404: "Not found",
            409: "Conflict with the current state, e.g. a duplicate name or e-mail (the message says which)",
            413: "The request body is over the endpoint's byte limit (the message names it); nothing stored",
            429: "Too many requests for now: the message and the Retry-After header say when to try again",
          }[c] ?? "Error",
        content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
      },
    ]),
  );
