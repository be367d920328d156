import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from "../src/errors";

// The shapes below are what Prisma 6 with the pg driver adapter threw against a real embedded server
// that was stopping (57P01 mid-transaction, 57P03 on new queries) and then stopped (P1001).
const adapter = (cause: object) => ({ name: "DriverAdapterError", cause });
const known = (code: string, cause?: object) => ({
  name: "PrismaClientKnownRequestError",
  code,
  meta: cause ? { driverAdapterError: adapter(cause) } : {},
});

describe("isDatabaseUnavailable", () => {
  it("knows a server that is shutting down, stopped or unreachable", () => {
    expect(isDatabaseUnavailable(known("P2010", { kind: "postgres", code: "57P01", originalCode: "57P01" }))).toBe(true);
    expect(isDatabaseUnavailable(known("P2010", { kind: "postgres", code: "57P03", originalCode: "57P03" }))).toBe(true);
    expect(isDatabaseUnavailable(adapter({ kind: "postgres", code: "57P03", originalCode: "57P03" }))).toBe(true);
    expect(isDatabaseUnavailable(known("P1001", { kind: "DatabaseNotReachable", host: "127.0.0.1", port: 1 }))).toBe(true);
    expect(isDatabaseUnavailable(known("P2010", { kind: "DatabaseNotReachable" }))).toBe(true);
    expect(isDatabaseUnavailable(known("P2024"))).toBe(true);
    expect(isDatabaseUnavailable({ name: "PrismaClientInitializationError" })).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error("connect"), { code: "ECONNREFUSED" }))).toBe(true);
  });

  // node-postgres used directly (the agents' long-poll), and its words for a connection a stop ended:
  // a heartbeat met the second one mid-transaction during a real stop and answered 500.
  it("knows node-postgres' refusals and lost connections", () => {
    const refusal = Object.assign(new Error("the database system is shutting down"), { severity: "FATAL", code: "57P03" });
    expect(isDatabaseUnavailable(refusal)).toBe(true);
    expect(isDatabaseUnavailable(new Error("Client has encountered a connection error and is not queryable"))).toBe(true);
    expect(isDatabaseUnavailable(new Error("Connection terminated unexpectedly"))).toBe(true);
    const badQuery = Object.assign(new Error('relation "x" does not exist'), { severity: "ERROR", code: "42P01" });
    expect(isDatabaseUnavailable(badQuery)).toBe(false);
  });

  // Prisma 6's words for an interactive transaction that could not start, or ran past its timeout.
  it("knows a transaction that timed out on a busy database, and no other transaction error", () => {
    const txError = (message: string) =>
      Object.assign(new Error(message), { name: "PrismaClientKnownRequestError", code: "P2028" });
    expect(isDatabaseUnavailable(txError("Transaction API error: Unable to start a transaction in the given time."))).toBe(true);
    expect(
      isDatabaseUnavailable(
        txError(
          "Transaction API error: Transaction already closed: A query cannot be executed on an expired transaction. The timeout for this transaction was 5000 ms, however 6012 ms passed since the start of the transaction.",
        ),
      ),
    ).toBe(true);
    expect(isDatabaseUnavailable(txError("Transaction API error: Transaction not found."))).toBe(false);
  });

  it("leaves every other failure alone (a unique violation, a bad query, a plain bug)", () => {
    expect(isDatabaseUnavailable(known("P2002"))).toBe(false);
    expect(isDatabaseUnavailable(known("P2010", { kind: "postgres", code: "23505", originalCode: "23505" }))).toBe(false);
    expect(isDatabaseUnavailable(known("P2010", { kind: "postgres", code: "40P01", originalCode: "40P01" }))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError("x is undefined"))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
  });
});
