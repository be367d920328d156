import { join } from "node:path";
import { repoRoot } from "@tranche/db/setup";

export interface ServiceContext {
  databaseUrl: string;
  webUrl: string;
  webHost: string;
  webPort: number;
}

export interface Service {
  name: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
  /** resolves when the service is ready; rejects with a one-line reason */
  ready?: () => Promise<void>;
}

/** Every long-running process of the platform, in start order. */
export function services(ctx: ServiceContext): Service[] {
  const root = repoRoot();
  return [
    {
      name: "web",
      command: process.execPath,
      args: [join(root, "node_modules", "next", "dist", "bin", "next"), "start", join(root, "apps", "web"), "-H", ctx.webHost, "-p", String(ctx.webPort)],
      env: { DATABASE_URL: ctx.databaseUrl, TRANCHE_PUBLIC_URL: ctx.webUrl },
      ready: () => waitForHttp(`${ctx.webUrl}/api/health`, 60_000),
    },
  ];
}

export async function waitForHttp(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
