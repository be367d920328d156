/** A refusal for going too fast, with how long to wait: the tRPC route answers it 429 with Retry-After. */
export class TooManyRequests extends Error {
  override readonly name = "TooManyRequests";
  constructor(
    message: string,
    readonly retryAfterSec: number,
  ) {
    super(message);
  }
}
