import { describe, expect, it } from "vitest";
import { errorText, fieldIssues } from "../lib/error-text";

// The message tRPC gave for an empty token name: zod's issues as JSON.
const dump = JSON.stringify([
  {
    origin: "string",
    code: "too_small",
    minimum: 1,
    inclusive: true,
    path: ["name"],
    message: "Too small: expected string to have >=1 characters",
  },
]);

describe("errorText", () => {
  it("turns a JSON dump of zod issues into one sentence per field", () => {
    expect(errorText({ message: dump })).toBe("Name must not be empty.");
    expect(fieldIssues({ message: dump })).toEqual([{ path: "name", message: "must not be empty" }]);
  });

  it("prefers the server's issues, and keeps a plain message as it is", () => {
    expect(errorText({ message: dump, data: { zodIssues: [{ path: "gpus", message: "must be at least 1" }] } })).toBe(
      "gpus must be at least 1.",
    );
    // A sentence of its own names its field already: not "Minimum runtime: Minimum runtime must ...".
    expect(
      errorText({ data: { zodIssues: [{ path: "minRuntime", message: "Minimum runtime must not be negative, got -1" }] } }),
    ).toBe("Minimum runtime must not be negative, got -1.");
    expect(errorText({ message: "There is no job 9" })).toBe("There is no job 9");
    expect(errorText({ message: "[not json" })).toBe("[not json");
  });

  it("names the fields of a server's sentence as the admin forms do, and leaves other words alone", () => {
    expect(
      errorText({
        message:
          "name is required; name may hold only lowercase letters, digits, '.', '_' and '-', starting with a letter or digit; gpuType is required",
      }),
    ).toBe(
      "name is required; name may hold only lowercase letters, digits, '.', '_' and '-', starting with a letter or digit; GPU type is required",
    );
    expect(errorText({ message: 'expiresIn "forever" is not a duration: use whole seconds (5400) or units s, m, h, d' })).toBe(
      'Valid for "forever" is not a duration: use whole seconds (5400) or units s, m, h, d',
    );
    expect(errorText({ message: "gpuTypes of the cluster; see expiresIn" })).toBe("gpuTypes of the cluster; see expiresIn");
  });
});
