import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

export interface Config {
  url: string;
  token: string;
}

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
    /** The server's list of problems, each naming its place, where it sent one. */
    readonly issues: { path: string; message: string }[] = [],
  ) {
    super(message);
  }
}

/** ~/.config/tranche/config.json (or $TRANCHE_CONFIG); TRANCHE_URL / TRANCHE_TOKEN override it. */
export function configPath(): string {
  return process.env.TRANCHE_CONFIG ?? join(process.env.XDG_CONFIG_HOME ?? join(homedir(), ".config"), "tranche", "config.json");
}

export function loadConfig(): Config {
  let file: Partial<Config> = {};
  const p = configPath();
  if (existsSync(p)) {
    try {
      file = JSON.parse(readFileSync(p, "utf8")) as Partial<Config>;
    } catch {
      throw new CliError(`${p} is not valid JSON; run \`tranche login\` again.`);
    }
  }
  const url = process.env.TRANCHE_URL ?? file.url;
  const token = process.env.TRANCHE_TOKEN ?? file.token;
  if (!url || !token)
    throw new CliError(
      "Not signed in: run `tranche login --url <server> --token <token>` (create a token in the web app under API tokens).",
    );
  return { url: url.replace(/\/$/, ""), token };
}

export function saveConfig(c: Config): string {
  const p = configPath();
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, JSON.stringify(c, null, 2) + "\n", { mode: 0o600 });
  // The mode above applies only to a new file: an existing one (made by hand, or by an older version)
  // would keep letting others on the machine read the token.
  chmodSync(p, 0o600);
  return p;
}

/** Call /api/v1; turns the JSON error body into a CliError with the server's message. */
export async function api<T>(cfg: Config, method: string, path: string, body?: unknown): Promise<T> {
  return send<T>(cfg, method, path, body !== undefined ? { text: JSON.stringify(body), type: "application/json" } : undefined);
}

/** Call /api/v1 with a body sent as it is (a YAML file), of the given content type. */
export async function apiText<T>(cfg: Config, method: string, path: string, text: string, type: string): Promise<T> {
  return send<T>(cfg, method, path, { text, type });
}

async function send<T>(cfg: Config, method: string, path: string, body?: { text: string; type: string }): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${cfg.url}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${cfg.token}`, ...(body ? { "content-type": body.type } : {}) },
      body: body?.text,
    });
  } catch (e) {
    throw new CliError(`Cannot reach ${cfg.url}: ${(e as Error).message}`);
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    throw new CliError(`${cfg.url} answered ${res.status} with something that is not JSON; is it a Tranche server?`);
  }
  if (!res.ok) {
    const error = (json as { error?: { message?: string; issues?: { path: string; message: string }[] } } | null)?.error;
    const msg = error?.message ?? `HTTP ${res.status}`;
    if (res.status === 401) throw new CliError(`${msg}. Run \`tranche login\` with a valid token.`);
    throw new CliError(msg, 1, error?.issues ?? []);
  }
  return json as T;
}
