import { describe, expect, it } from "vitest";
import { isCurrentNav, jobPageUnder } from "../lib/nav";

const MY_JOBS = { href: "/jobs", match: "/jobs" };
const QUEUE = { href: "/queue", match: "/queue" };
const OVERVIEW = { href: "/" };

describe("the sidebar entry a page sits under", () => {
  it("puts someone else's job under the live queue, never under My jobs", () => {
    const under = jobPageUnder("user-ada", "user-omar");
    expect(under).toBe("/queue");
    expect(isCurrentNav("/jobs/42", MY_JOBS, under)).toBe(false);
    expect(isCurrentNav("/jobs/42", QUEUE, under)).toBe(true);
  });

  it("puts the viewer's own job under My jobs", () => {
    const under = jobPageUnder("user-ada", "user-ada");
    expect(isCurrentNav("/jobs/42", MY_JOBS, under)).toBe(true);
    expect(isCurrentNav("/jobs/42", QUEUE, under)).toBe(false);
  });

  it("puts an array's page where its tasks' pages are", () => {
    expect(isCurrentNav("/arrays/120", MY_JOBS, jobPageUnder("user-ada", "user-ada"))).toBe(true);
    expect(isCurrentNav("/arrays/120", QUEUE, jobPageUnder("user-ada", "user-omar"))).toBe(true);
    expect(isCurrentNav("/arrays/120", MY_JOBS, jobPageUnder("user-ada", "user-omar"))).toBe(false);
  });

  it("highlights nothing on a job page until the viewer and the job are known", () => {
    expect(jobPageUnder(undefined, "user-ada")).toBeNull();
    expect(isCurrentNav("/jobs/42", MY_JOBS, null)).toBe(false);
    expect(isCurrentNav("/jobs/42", QUEUE, null)).toBe(false);
  });

  it("keeps the other pages' own matches", () => {
    expect(isCurrentNav("/jobs", MY_JOBS, null)).toBe(true);
    expect(isCurrentNav("/queue/h100", QUEUE, null)).toBe(true);
    expect(isCurrentNav("/", OVERVIEW, null)).toBe(true);
    expect(isCurrentNav("/queue/h100", OVERVIEW, null)).toBe(false);
  });
});
