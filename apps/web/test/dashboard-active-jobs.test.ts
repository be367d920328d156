import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { ArrayRowView, JobRowsView } from "@tranche/contracts";
import { JobRowsTable } from "../app/(app)/jobs/job-rows-table";

const NOW = Date.parse("2026-12-07T10:00:00Z");
const array: ArrayRowView = {
  id: 120,
  name: "sweep",
  spec: "0-99",
  cluster: "h100",
  budget: "lab/nlp",
  user: { id: "u", name: "Rita Researcher" },
  gpus: 1,
  tasks: 100,
  states: { PENDING: 80, RUNNING: 20 },
  lastActivityAt: "2026-12-07T09:58:00Z",
};

describe("the dashboard's active jobs", () => {
  it("asks for arrays as rows and shows them with My jobs' table", () => {
    const source = readFileSync(join(__dirname, "../components/my-active-jobs.tsx"), "utf8");
    // job.list gives one row per task: a 100-task array filled the panel's 20 rows.
    expect(source).toContain("trpc.job.rows.queryOptions");
    expect(source).not.toContain("trpc.job.list");
    expect(source).toContain("<JobRowsTable");
  });

  it("shows an array as one row saying where its tasks stand", () => {
    const rows: JobRowsView = { jobs: [], arrays: [array] };
    const html = renderToStaticMarkup(createElement(JobRowsTable, { rows, showUser: false, now: NOW }));
    expect(html.match(/<tr data-testid=/g)).toHaveLength(1);
    expect(html).toContain("array of 100: 80 pending, 20 running");
  });
});
