// `npm run admin -- create-admin --email E --name N`: the first admin of a fresh deployment.
// `npm run admin -- create-token --email E [--name N]`: an API token for an existing user.
// The password is read from stdin (typed without echo at a terminal, or piped), never from the command
// line, where it would land in the shell history and the process list. Works on DATABASE_URL or on the
// embedded database (the running one of `npm start` when it is up, else started for the command).
// Prints an API token for the new admin once.
import { parseArgs } from "node:util";
import { ConfigError, createPrismaClient, type PrismaClient } from "@tranche/db";
import {
  DEFAULT_EMBEDDED_PORT,
  assertReachable,
  runningEmbeddedUrl,
  migrateDeploy,
  openDatabase,
  type Database,
} from "@tranche/db/setup";
import { personNameProblem } from "@tranche/contracts";
import { DomainError, createAdminWithPassword, createApiToken } from "@tranche/domain";

const MIN_PASSWORD = 8;
const USAGE = [
  "usage: npm run admin -- create-admin --email E --name N   (the password is read from stdin)",
  "       npm run admin -- create-token --email E [--name N]  (an API token for that user, printed once)",
].join("\n");

async function readPassword(): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    let text = "";
    for await (const chunk of stdin) text += String(chunk);
    return text.split(/\r?\n/)[0] ?? "";
  }
  // At a terminal: raw mode, so the password is not echoed.
  process.stderr.write("Password for the new admin: ");
  stdin.setRawMode(true);
  stdin.resume();
  return new Promise((resolve, reject) => {
    let pw = "";
    stdin.on("data", (b: Buffer) => {
      for (const ch of b.toString("utf8")) {
        if (ch === "\r" || ch === "\n") {
          stdin.setRawMode(false);
          stdin.pause();
          process.stderr.write("\n");
          return resolve(pw);
        }
        if (ch === "\u0003") return reject(new ConfigError("cancelled"));
        if (ch === "\u007f") pw = pw.slice(0, -1);
        else pw += ch;
      }
    });
  });
}

/** DATABASE_URL, or the embedded server: reuse a running one (npm start), else start it for this command. */
async function database(): Promise<Database> {
  if (process.env.DATABASE_URL) return openDatabase();
  const port = Number(process.env.TRANCHE_PG_PORT ?? DEFAULT_EMBEDDED_PORT);
  const url = runningEmbeddedUrl(port);
  if (url === null) return openDatabase();
  const running = await assertReachable(url, 1500).then(
    () => true,
    () => false,
  );
  if (!running) return openDatabase();
  await migrateDeploy(url);
  return { url, embedded: false, stop: async () => {} };
}

/** The commands' --email (required, an address, lower-cased) and --name (trimmed; "" when left out). */
function emailAndName(args: string[]): { email: string; name: string } {
  const { values } = parseArgs({ args, options: { email: { type: "string" }, name: { type: "string" } }, strict: true });
  const email = values.email?.trim().toLowerCase();
  if (!email || !/^[^@\s]+@[^@\s]+$/.test(email))
    throw new ConfigError(`--email is required and must be an e-mail address\n${USAGE}`);
  return { email, name: values.name?.trim() ?? "" };
}

/** Runs `fn` on the database (see database()), then disconnects and stops what it started. */
async function withPrisma(fn: (prisma: PrismaClient) => Promise<void>): Promise<void> {
  const db = await database();
  const prisma = createPrismaClient(db.url, { max: 2 });
  try {
    await fn(prisma);
  } finally {
    await prisma.$disconnect();
    await db.stop();
  }
}

async function createAdmin(args: string[]): Promise<void> {
  const { email, name } = emailAndName(args);
  if (!name) throw new ConfigError(`--name is required\n${USAGE}`);
  const problem = personNameProblem(name, "--name");
  if (problem) throw new ConfigError(problem);
  const password = await readPassword();
  if (password.length < MIN_PASSWORD)
    throw new ConfigError(`the password must be at least ${MIN_PASSWORD} characters (read from stdin)`);
  await withPrisma(async (prisma) => {
    const admin = await createAdminWithPassword(prisma, { email, name, password });
    const { token } = await createApiToken(prisma, admin, { name: "created with create-admin" }, "npm run admin -- create-admin");
    console.log(`Created the admin ${name} <${email}>. Sign in to the web app with this e-mail and password.`);
    console.log(`API token (shown only now; revoke it under API tokens when not needed): ${token}`);
  });
}

/**
 * An API token for an existing user, from the server's terminal: what the web app's API tokens page
 * does, for an admin who works without a browser or a researcher's first token for the CLI. Whoever runs
 * this holds the database already, so it grants nothing they could not take.
 */
async function createToken(args: string[]): Promise<void> {
  const { email, name: given } = emailAndName(args);
  const name = given || "created with npm run admin -- create-token";
  await withPrisma(async (prisma) => {
    const user = await prisma.user.findUnique({ where: { email } });
    if (!user) throw new ConfigError(`there is no user ${email}; create one first (Admin > Users, or POST /api/v1/users)`);
    if (user.disabledAt) throw new ConfigError(`${email} is disabled; enable the account first`);
    const actor = { id: user.id, email: user.email, name: user.name, role: user.role };
    const { token, apiToken } = await createApiToken(prisma, actor, { name }, "npm run admin -- create-token");
    // To the minute in UTC, as the CLI says a link's validity: the server may be in another zone.
    const expires = apiToken.expiresAt
      ? `${new Date(apiToken.expiresAt).toISOString().slice(0, 16).replace("T", " ")} UTC`
      : "never";
    console.log(`API token "${name}" for ${user.name} <${email}> (shown only now; it expires ${expires}):`);
    console.log(token);
  });
}

const [command, ...rest] = process.argv.slice(2);
try {
  if (command === "create-admin") await createAdmin(rest);
  else if (command === "create-token") await createToken(rest);
  else if (command === "--help" || command === "-h" || command === "help") console.log(USAGE);
  else throw new ConfigError(command ? `unknown command '${command}'\n${USAGE}` : USAGE);
} catch (e) {
  const known = e instanceof ConfigError || e instanceof DomainError || (e instanceof TypeError && "code" in e);
  console.error(known ? `tranche admin: ${(e as Error).message}` : e);
  process.exit(1);
}
