/**
 * Read a request body as text, at most `limit` bytes: null when it is larger. A declared
 * Content-Length over the limit is refused before anything is read; otherwise reading stops (and the
 * stream is cancelled) at the first byte past the limit, so an oversized body is never held whole.
 * Web-standard Request only: the web app's route handlers use it for REST and the agent protocol.
 */
export async function readBodyText(req: Request, limit: number): Promise<string | null> {
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    await req.body?.cancel().catch(() => undefined);
    return null;
  }
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return new TextDecoder().decode(all);
}
