import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { unsizedMebibyte } from "./support/unsized-body";

// Next's proxy does not run for /api (it would copy every body), so each API route passes the front
// gate itself (server/api-route.ts). Every route file is loaded and asked, in each method it exports,
// for something the gate refuses: a route without the gate would run its handler instead.
vi.mock("server-only", () => ({}));
vi.mock("../server/auth", () => ({ sessionActor: async () => null, auth: () => ({}), authSecret: () => "s" }));
vi.mock("../server/db", () => ({ db: () => ({}), agentDb: () => ({}) }));

const API = join(import.meta.dirname, "..", "app", "api");
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
type Route = Partial<Record<(typeof METHODS)[number], (req: Request, ctx: unknown) => Promise<Response>>>;

function routeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? routeFiles(join(dir, e.name)) : /^route\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}
const ctx = { params: Promise.resolve({ path: ["me"], all: ["get-session"], trpc: "me.get" }) };
const APP = "http://127.0.0.1:3000";

beforeAll(() => {
  // The sessions host of an app on 127.0.0.1 is localhost, same port (sessions-origin.ts).
  vi.stubEnv("TRANCHE_PUBLIC_URL", APP);
});

describe("every API route passes the front gate", () => {
  const files = routeFiles(API);

  it("finds the route files", () => {
    expect(files.map((f) => relative(API, f)).sort()).toContain("agent/v1/heartbeat/route.ts");
    expect(files.length).toBeGreaterThanOrEqual(7);
  });

  for (const file of files) {
    it(`${relative(API, file)}: refuses the sessions host and a path it cannot decode`, async () => {
      const route = (await import(file)) as Route;
      const exported = METHODS.filter((m) => route[m]);
      expect(exported.length).toBeGreaterThan(0);
      const path =
        "/api/" +
        relative(API, file)
          .replace(/\/route\.tsx?$/, "")
          .replace(/\[.*?\]/g, "x");
      for (const m of exported) {
        const body = m === "GET" ? undefined : "{}";
        const onSessions = new Request(APP + path, { method: m, headers: { host: "localhost:3000" }, body });
        const refused = await route[m]!(onSessions, ctx);
        expect(refused.status, `${m} ${path}`).toBe(404);
        expect(await refused.text()).toContain("This address serves interactive sessions only");
        const undecodable = await route[m]!(new Request(`${APP}${path}/%E0%A4%A`, { method: m, body }), ctx);
        expect(undecodable.status, `${m} ${path}/%E0%A4%A`).toBe(400);
      }
    });
  }
});

describe("tRPC", () => {
  it("reads no more than 64 KiB of a signed-out caller's body sent without a length: 413", async () => {
    const route = (await import("../app/api/trpc/[trpc]/route")) as Route;
    const { body: mebibyte, sent } = unsizedMebibyte();
    const req = new Request(`${APP}/api/trpc/admin.setPassword`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: mebibyte,
      duplex: "half",
    } as RequestInit);
    const r = await route.POST!(req, ctx);
    expect(r.status).toBe(413);
    expect(await r.text()).toContain("larger than 64 KiB");
    expect(sent()).toBeLessThan(256 * 1024);
  });
});
