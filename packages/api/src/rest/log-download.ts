/** A job's whole kept log as a plain-text download, streamed page by page from the database. */
export function logDownload(
  jobId: number,
  stream: "stdout" | "stderr" | undefined,
  log: { chunks: AsyncIterable<string> },
): Response {
  const encoder = new TextEncoder();
  const it = log.chunks[Symbol.asyncIterator]();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await it.next();
        if (done) controller.close();
        else controller.enqueue(encoder.encode(value));
      } catch (e) {
        controller.error(e);
      }
    },
    async cancel() {
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
