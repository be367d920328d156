import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { arrayTaskText } from "@tranche/contracts/format";
import { JobNameCell } from "../app/(app)/jobs/job-name-cell";

const job = { id: 123, name: "sweep", array: null, user: { name: "Rita Researcher" } };
const cell = (j: Parameters<typeof JobNameCell>[0]["job"], showUser = false): string =>
  renderToStaticMarkup(
    createElement(
      "table",
      null,
      createElement("tbody", null, createElement("tr", null, createElement(JobNameCell, { job: j, showUser }))),
    ),
  );

describe("the jobs list's Job cell", () => {
  it("says which task of which array a task is, in the words of the job page and `tranche ls`, linking to the array", () => {
    const html = cell({ ...job, array: { id: 120, index: 3, spec: "0-99%10" } });
    expect(arrayTaskText({ index: 3, spec: "0-99%10" })).toBe("task 3 of 0-99%10");
    expect(html).toContain('task 3 of 0-99%10 (<a href="/arrays/120">array #120</a>)');
    expect(html).toContain('href="/jobs/123"');
  });

  it("says nothing of arrays for a job that is not a task, and names the owner only when asked", () => {
    expect(cell(job)).not.toContain("array");
    expect(cell(job)).not.toContain("Rita Researcher");
    expect(cell(job, true)).toContain("Rita Researcher");
  });
});
