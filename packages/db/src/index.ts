// Runtime surface: what the web app, API and worker need to talk to the database.
// Starting servers, migrating and seeding live in "@tranche/db/setup" so bundles never pull them in.
export { createPrismaClient, Prisma, statementTimeouts, type PrismaClient, type Tx } from "./client";
export {
  ConfigError,
  DATABASE_RETRY_AFTER_SEC,
  DATABASE_UNAVAILABLE_SENTENCE,
  duplicateSentence,
  isDatabaseUnavailable,
  uniqueViolationFields,
} from "./errors";
export * from "./generated/enums";
// Password hashes in the auth library's own format, so an account set here signs in through it.
export { hashPassword } from "better-auth/crypto";
