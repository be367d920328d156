// A manager's report: GET /api/v1/measures/{cluster} (the charts page's measures as data) and
// `tranche report`, the real CLI process against the real REST handler and a real Postgres.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCliStack, type CliStack } from "./cli-stack";
import { callRest, type World } from "./fixtures";

type Who = "maya" | "ada";
let stack: CliStack<Who>;
let w: World;

beforeAll(async () => {
  stack = await startCliStack("api_cli_report", { users: ["maya", "ada"], tmpPrefix: "tranche-cli-report-" });
  w = stack.w;
});
afterAll(() => stack?.stop());

const token = (who: Who) => stack.tokens[who];

describe("GET /api/v1/measures/{cluster}", () => {
  it("answers the window's delivery per budget and each budget's usage against what it earned", async () => {
    const r = await callRest(w, "GET", "/measures/h100?hours=6", { token: token("ada") });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ cluster: "h100", hours: 6 });
    expect(Array.isArray(r.body.delivery)).toBe(true);
    expect(r.body.deliveryWindow).toHaveProperty("budgetsOwed");
    const budgets = (r.body.usage as { budget: string }[]).map((u) => u.budget);
    expect(budgets).toContain("lab/language/pretraining");
    expect(budgets).not.toContain("lab/language");
    expect((await callRest(w, "GET", "/measures/h100", { token: token("ada") })).body.hours).toBe(24);
  });

  it("refuses a bad window naming hours, an unknown parameter, an unknown cluster and no token", async () => {
    for (const q of ["0", "169", "abc", "2.5"]) {
      const r = await callRest(w, "GET", `/measures/h100?hours=${q}`, { token: token("ada") });
      expect(r.status, q).toBe(400);
      expect(r.body.error.message).toContain("hours");
    }
    const odd = await callRest(w, "GET", "/measures/h100?hour=3", { token: token("ada") });
    expect(odd.status).toBe(400);
    expect(odd.body.error.message).toContain("hour");
    expect((await callRest(w, "GET", "/measures/nowhere", { token: token("ada") })).status).toBe(404);
    expect((await callRest(w, "GET", "/measures/h100", {})).status).toBe(401);
  });

  it("is in the OpenAPI document with its window parameter", async () => {
    const doc = await callRest(w, "GET", "/openapi.json");
    const params = doc.body.paths["/measures/{cluster}"].get.parameters as { name: string }[];
    expect(params.map((p) => p.name)).toEqual(["cluster", "hours"]);
  });
});

describe("tranche report", () => {
  it("prints a subtree's delivery and usage as text, and as CSV", async () => {
    const text = await stack.cli(["report", "h100", "--hours", "12", "--budget", "lab/language"], "maya");
    expect(text.stderr).toBe("");
    expect(text.stdout).toMatch(/^Delivery on h100 from .* to .*:\n/);
    expect(text.stdout).toContain("lab/language/pretraining");
    expect(text.stdout).not.toContain("lab/vision/");
    const csv = await stack.cli(["report", "h100", "--csv", "--budget", "lab/language/pretraining"], "maya");
    const lines = csv.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe(
      "budget,owed_gpu_hours,delivered_gpu_hours,delivery,used_gpu_hours_7d,earned_gpu_hours_7d,used_of_share_7d",
    );
    expect(lines.slice(1).map((l) => l.split(",")[0])).toEqual(["lab/language/pretraining"]);
    const bad = await stack.cli(["report", "h100", "--hours", "500"], "maya");
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("--hours must be a whole number from 1 to 168, got '500'");
  });
});
