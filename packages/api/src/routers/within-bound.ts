import { TRPCError } from "@trpc/server";
import { TooManyRequests } from "../too-many-requests";

/**
 * Runs `read` inside a bound of request-gate.ts (`enter` takes the place and answers how to leave it),
 * and leaves when it ends, whatever the answer; past the bound, TOO_MANY_REQUESTS with a Retry-After.
 */
export async function withinBound<T>(enter: () => () => void, read: () => Promise<T>): Promise<T> {
  let leave: () => void;
  try {
    leave = enter();
  } catch (e) {
    if (e instanceof TooManyRequests) throw new TRPCError({ code: "TOO_MANY_REQUESTS", message: e.message, cause: e });
    throw e;
  }
  try {
    return await read();
  } finally {
    leave();
  }
}
