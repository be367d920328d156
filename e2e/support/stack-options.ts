import { resolve } from "node:path";

// Where an e2e stack keeps its database and which ports the stacks take, apart from stack.ts (which
// starts everything when imported) so a unit test can check them.

/** The stack's data folder: an absolute `--data` as given, a relative one under the repository root. */
export function stackDataDir(root: string, given: string): string {
  return resolve(root, given);
}

function portFrom(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 65_535)
    throw new Error(`${name}=${raw} is not a port (a whole number from 1 to 65535)`);
  return n;
}

/**
 * The e2e ports: the demo stack's web app (E2E_PORT, 3100) and database (E2E_PG_PORT, 54349), and the
 * first-start journey's own stack beside them, derived from those two so that one engineer's E2E_PORT
 * and E2E_PG_PORT move both stacks. Each is where a stack starts looking: a stack started with
 * `--free-port` (the first-start one) takes the next free web port, and every stack takes the next free
 * database port, so two runs side by side never share one.
 */
export function e2ePorts(env: Record<string, string | undefined> = process.env): {
  web: number;
  pg: number;
  firstStartWeb: number;
  firstStartPg: number;
} {
  const web = portFrom(env, "E2E_PORT", 3100);
  const pg = portFrom(env, "E2E_PG_PORT", 54_349);
  return { web, pg, firstStartWeb: web + 7, firstStartPg: pg + 20 };
}
