/**
 * A 1 MiB request body sent without a length, in 16 KiB pieces, and how much of it was pulled so far:
 * a bounded reader stops pulling soon after its limit.
 */
export function unsizedMebibyte(): { body: ReadableStream<Uint8Array>; sent: () => number } {
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent === 1024 * 1024) return c.close();
      sent += 16 * 1024;
      c.enqueue(new Uint8Array(16 * 1024).fill(0x20));
    },
  });
  return { body, sent: () => sent };
}
