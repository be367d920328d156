import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

// The deployment files (compose, Dockerfile, the systemd unit) checked against the real code: every
// command line they hold is run here, without a container engine, with `--help` (its options must be
// ones the program lists) and, for Tranche's own programs, `--dry-run` (the options and environment must
// be accepted). A renamed or removed option fails this suite, not a lab's first deployment.

const root = join(import.meta.dirname, "..", "..");
const composeFile = join(root, "docker-compose.yml");
const unitFile = join(root, "deploy", "systemd", "tranche-agent.service");

type Service = {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  profiles?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
};

/** Compose's variable interpolation with an empty environment: `${X:-default}`, `${X-default}`, `${X}`, `$$`. */
function interpolate(value: string): string {
  return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}/g, (m, _name, fallback: string | undefined) =>
    m === "$$" ? "$" : (fallback ?? ""),
  );
}

function composeServices(): Record<string, Service> {
  const compose = parse(readFileSync(composeFile, "utf8"), { merge: true }) as { services: Record<string, Service> };
  const out: Record<string, Service> = {};
  for (const [name, s] of Object.entries(compose.services)) {
    out[name] = {
      ...s,
      command: s.command?.map((a) => interpolate(String(a))),
      environment: Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, interpolate(String(v))])),
    };
  }
  return out;
}

/** Services that run the Tranche image (the others are stock images such as postgres). */
const ownServices = (services: Record<string, Service>) =>
  Object.entries(services).filter(([, s]) => s.image === "tranche:local");

/** Where the program starts in a `node ... script args` line: the first argument that is a file in the repository. */
function splitCommand(command: string[]): { nodeArgs: string[]; script: string; args: string[] } {
  expect(command[0]).toBe("node");
  const i = command.findIndex((a, k) => k > 0 && existsSync(join(root, a)) && statSync(join(root, a)).isFile());
  expect(i, `no script file of the repository in ${command.join(" ")}`).toBeGreaterThan(0);
  return { nodeArgs: command.slice(1, i), script: command[i]!, args: command.slice(i + 1) };
}

function run(command: string[], extra: string[], env: Record<string, string> = {}) {
  const { nodeArgs, script, args } = splitCommand(command);
  return spawnSync(process.execPath, [...nodeArgs, join(root, script), ...args, ...extra], {
    cwd: root,
    // The service's own environment only (plus PATH/HOME), so nothing from this shell leaks in.
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
}

/** Runs the line with --help: it must exit 0, and every option it passes must be one the help lists. */
function expectHelpListsOptions(what: string, command: string[]): string {
  const r = run(command, ["--help"]);
  expect(r.stderr, `${what}: stderr of --help`).toBe("");
  expect(r.status, `${what}: --help exit status`).toBe(0);
  const { args } = splitCommand(command);
  for (const option of args.filter((a) => a.startsWith("-")).map((a) => a.split("=")[0]!)) {
    expect(r.stdout, `${what}: option ${option} is not in its --help`).toMatch(
      new RegExp(`(^|[\\s,])${option.replace(/[-]/g, "\\-")}([\\s,=]|$)`, "m"),
    );
  }
  // Relative paths it is given (a directory to serve, a script) must exist in the image's tree.
  for (const path of args.filter((a) => /^[\w.-]+\/[\w./-]+$/.test(a))) {
    expect(existsSync(join(root, path)), `${what}: ${path} does not exist`).toBe(true);
  }
  return r.stdout;
}

describe("docker-compose.yml", () => {
  const services = composeServices();

  it("runs Postgres 17, migrations, web and worker on one database, with fake agents only on request", () => {
    expect(Object.keys(services).sort()).toEqual(["agents", "migrate", "postgres", "web", "worker"]);
    expect(services.postgres!.image).toBe("postgres:17");
    for (const s of ["migrate", "web", "worker"]) {
      expect(services[s]!.environment!.DATABASE_URL).toBe("postgresql://tranche:tranche@postgres:5432/tranche");
    }
    expect(services.web!.depends_on!.migrate!.condition).toBe("service_completed_successfully");
    expect(services.worker!.depends_on!.migrate!.condition).toBe("service_completed_successfully");
    expect(services.agents!.profiles).toEqual(["fake-gpus"]);
  });

  it("never seeds the demo (the migrate service applies the schema only)", () => {
    expect(services.migrate!.command!.join(" ")).not.toMatch(/--demo|--seed/);
  });

  it("points the agents at the web service's port, with the token from TRANCHE_ENROLLMENT_TOKEN", () => {
    const agent = services.agents!.command!;
    const server = new URL(agent[agent.indexOf("--server") + 1]!);
    expect(Object.keys(services)).toContain(server.hostname);
    const web = services[server.hostname]!.command!;
    expect(web[web.indexOf("-p") + 1]).toBe(server.port);
    expect(Object.keys(services.agents!.environment!)).toContain("TRANCHE_ENROLLMENT_TOKEN");
  });

  for (const [name, service] of ownServices(services)) {
    it(`service ${name}: its command line is accepted by the real code (--help lists its options)`, () => {
      const help = expectHelpListsOptions(name, service.command!);
      // Tranche's own programs also check their options and environment for real.
      if (help.includes("--dry-run")) {
        const r = run(service.command!, ["--dry-run"], service.environment);
        expect(r.stderr, `${name}: stderr of --dry-run`).toBe("");
        expect(r.status, `${name}: --dry-run exit status`).toBe(0);
        expect(r.stdout).toContain("dry run");
      }
    });
  }

  it("has a web health check that is valid JavaScript", () => {
    const test = services.web!.healthcheck!.test;
    expect(test.slice(0, 3)).toEqual(["CMD", "node", "-e"]);
    expect(() => new Function(test[3]!)).not.toThrow();
  });

  it("is what the compose tool on this machine reads (`compose config`), where a compose client exists", () => {
    const cmd = composeCommand();
    if (!cmd) {
      // No compose client here (a docker CLI without the plugin counts as none): the file was parsed and
      // every command line run above; say so in the output.
      console.warn("no docker compose client on this machine; checked the YAML and ran every command line");
      expect(Object.keys(services).length).toBeGreaterThan(0);
      return;
    }
    const r = spawnSync(cmd[0]!, [...cmd.slice(1), "-f", composeFile, "--profile", "fake-gpus", "config"], {
      cwd: root,
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" },
    });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const resolved = (parse(r.stdout) as { services: Record<string, Service> }).services;
    for (const [name, s] of ownServices(services)) expect(resolved[name]!.command, name).toEqual(s.command);
  });
});

function composeCommand(): string[] | null {
  if (spawnSync("docker", ["compose", "version"], { encoding: "utf8" }).status === 0) return ["docker", "compose"];
  if (spawnSync("docker-compose", ["version"], { encoding: "utf8" }).status === 0) return ["docker-compose"];
  return null;
}

describe("Dockerfile", () => {
  const lines = readFileSync(join(root, "Dockerfile"), "utf8").split("\n");
  const copied = lines.filter((l) => /^COPY\s/.test(l) && !l.includes("--from")).flatMap((l) => l.split(/\s+/).slice(1, -1));

  it("copies only paths that exist, and ignores local builds and data", () => {
    for (const p of copied) expect(existsSync(join(root, p)), `COPY ${p}`).toBe(true);
    const ignore = readFileSync(join(root, ".dockerignore"), "utf8");
    for (const p of ["**/node_modules", "**/.next", ".data"]) expect(ignore).toContain(p);
  });

  it("holds every script the compose services run, and its default command is the web service's", () => {
    for (const [name, s] of ownServices(composeServices())) {
      const { script } = splitCommand(s.command!);
      expect(
        copied.some((p) => script === p || script.startsWith(`${p.replace(/\/$/, "")}/`) || script.startsWith("node_modules/")),
        `${name}: ${script} is not copied into the image`,
      ).toBe(true);
    }
    const cmd = lines.find((l) => l.startsWith("CMD "))!;
    expect(JSON.parse(cmd.slice(4))).toEqual(composeServices().web!.command);
  });
});

describe("deploy/systemd/tranche-agent.service", () => {
  const unit = readFileSync(unitFile, "utf8");
  const exec = /^ExecStart=(.*)$/m.exec(unit)![1]!.split(/\s+/);
  // On a host the checkout is /opt/tranche; here it is this repository.
  const command = ["node", ...exec.slice(1).map((a) => a.replace(/^\/opt\/tranche\//, ""))];

  it("starts the node agent with options it accepts", () => {
    expect(exec[0]).toBe("/usr/bin/node");
    expectHelpListsOptions("tranche-agent.service", command);
    const r = run(command, ["--dry-run"], { TRANCHE_ENROLLMENT_TOKEN: "tet_example" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("enrollment tokens for 1 of 1 (from TRANCHE_ENROLLMENT_TOKEN)");
  });

  it("leaves job processes running when the agent stops, and reads the token file only if present", () => {
    expect(unit).toMatch(/^KillMode=process$/m);
    expect(unit).toMatch(/^EnvironmentFile=-\/etc\/tranche\/agent\.env$/m);
  });
});

describe("README: Run it for your lab", () => {
  it("starts the agent on the GPU host with a command line the agent accepts", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("## Run it for your lab"));
    const line = /```sh\n\s*(node --import tsx apps\/node-agent\/src\/main\.ts[^`]*)```/
      .exec(section)![1]!
      .replace(/\\\n\s*/g, " ")
      .trim()
      .split(/\s+/);
    expect(line).toContain("--enrollment-token");
    const r = run(line, ["--dry-run"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("enrollment tokens for 1 of 1 (from --enrollment-token)");
  });
});
