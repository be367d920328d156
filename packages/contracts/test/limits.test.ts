import { describe, expect, it } from "vitest";
import { fieldIssues, formatBytes, issuesSentence, readBodyText, submitJobInput, utf8Bytes } from "../src";

describe("limits helpers", () => {
  it("count UTF-8 bytes like Buffer.byteLength, without Buffer (the form runs in a browser)", () => {
    for (const s of ["", "abc", "é", "€", "😀", "a😀b€é", "\u0000", "\ud800"])
      expect(utf8Bytes(s), JSON.stringify(s)).toBe(Buffer.byteLength(s, "utf8"));
  });

  it("say limits in words", () => {
    expect(formatBytes(1024 * 1024)).toBe("1 MiB");
    expect(formatBytes(32 * 1024)).toBe("32 KiB");
    expect(formatBytes(5_000_000)).toBe("5,000,000 bytes");
  });

  it("name each unknown field at its own path, in words", () => {
    const r = submitJobInput.safeParse({ cluster: "a", budget: "b", gpus: 1, minRuntime: 0, command: "x", foo: 1, bar: 2 });
    const issues = fieldIssues(r.error!);
    expect(issues.map((i) => i.path)).toEqual(["foo", "bar"]);
    expect(issues[0]!.message).toMatch(/^unknown field 'foo' in a job submission \(fields: cluster, budget, /);
    expect(issuesSentence(issues)).toMatch(/^foo: unknown field 'foo' .*; bar: unknown field 'bar' /);
  });
});

describe("readBodyText", () => {
  const req = (body: string | ReadableStream<Uint8Array>, headers: Record<string, string> = {}) =>
    new Request("http://x/", { method: "POST", body, headers, duplex: "half" } as RequestInit);

  it("reads a body up to the limit and refuses one past it", async () => {
    expect(await readBodyText(req("héllo"), 6)).toBe("héllo");
    expect(await readBodyText(req("héllo!"), 6)).toBeNull();
  });

  it("refuses a declared Content-Length over the limit without reading", async () => {
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        pulled++;
        c.enqueue(new Uint8Array(10));
      },
    });
    expect(await readBodyText(req(stream, { "content-length": "1000000" }), 100)).toBeNull();
    expect(pulled).toBeLessThanOrEqual(1);
  });
});
