import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { ArrayRowView, JobRowsView } from "@tranche/contracts";
import { JobRowsTable } from "../app/(app)/jobs/job-rows-table";
import { MyActiveJobs } from "../components/my-active-jobs";
import { renderWithAnswers } from "./support/render-with-answers";

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
  it("asks job.rows for your active jobs, each array one row, and shows them with My jobs' table", () => {
    // job.list gave one row per task: a 100-task array filled the panel's 20 rows.
    const mine = { scope: "mine", active: true, limit: 20 } as const;
    const { html, asked } = renderWithAnswers(createElement(MyActiveJobs), (api, qc) => {
      qc.setQueryData(api.job.rows.queryKey(mine), { jobs: [], arrays: [array] });
    });
    expect(asked).toEqual([{ path: "job.rows", input: mine }]);
    expect(html.match(/<tr data-testid=/g)).toHaveLength(1);
    expect(html).toContain("array of 100: 80 pending, 20 running");
  });

  it("shows an array as one row saying where its tasks stand", () => {
    const rows: JobRowsView = { jobs: [], arrays: [array] };
    const html = renderToStaticMarkup(createElement(JobRowsTable, { rows, showUser: false, now: NOW }));
    expect(html.match(/<tr data-testid=/g)).toHaveLength(1);
    expect(html).toContain("array of 100: 80 pending, 20 running");
  });
});
