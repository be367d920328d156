/**
 * A job's whole kept log as a plain-text download, streamed page by page from the database. It goes on
 * after the handler has answered, so it holds its own place among its person's calls in flight
 * (`leave`, called once it ends, fails or is abandoned): a download whose reader never reads holds a
 * page of the log in this process.
 */
export function logDownload(
  jobId: number,
  stream: "stdout" | "stderr" | undefined,
  log: { chunks: AsyncIterable<string> },
  leave: () => void = () => {},
): Response {
  const encoder = new TextEncoder();
  const it = log.chunks[Symbol.asyncIterator]();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await it.next();
        if (done) {
          controller.close();
          leave();
        } else controller.enqueue(encoder.encode(value));
      } catch (e) {
        controller.error(e);
        leave();
      }
    },
    async cancel() {
      leave();
      await it.return?.();
    },
  });
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": "text/plain; charset=utf-8",
      "content-disposition": `attachment; filename="job-${jobId}${stream ? `-${stream}` : ""}.log"`,
      "cache-control": "no-store",
    },
  });
}
