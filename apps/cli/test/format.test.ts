import { describe, expect, it } from "vitest";
import { gpus, printable, stoppingText, validity, visible, when } from "../src/format";

describe("CLI words", () => {
  it("counts GPUs as a person writes them", () => {
    expect([1, 2, 8].map(gpus)).toEqual(["1 GPU", "2 GPUs", "8 GPUs"]);
  });

  it("says how a cancelled running job stops in words, with the time left rather than a timestamp", () => {
    const now = Date.parse("2026-12-06T14:00:00Z");
    expect(stoppingText(12, "2026-12-06T14:02:00.000Z", now)).toBe(
      "Job #12 is stopping: asked to stop now (SIGTERM), and stopped by force (SIGKILL) in 2 min if it still runs.",
    );
    expect(stoppingText(12, null, now)).toBe("Job #12 is stopping: asked to stop now (SIGTERM).");
  });

  it("never says less time than is left before SIGKILL: a 2 min grace a second in is 1 min 59 s, not 1 min", () => {
    const now = Date.parse("2026-12-06T14:00:01.300Z");
    expect(stoppingText(12, "2026-12-06T14:02:00.000Z", now)).toBe(
      "Job #12 is stopping: asked to stop now (SIGTERM), and stopped by force (SIGKILL) in 1 min 59 s if it still runs.",
    );
  });

  it("says how long a link or token stays good in words, then the moment in UTC to the minute", () => {
    const now = Date.parse("2026-12-06T17:43:22.859Z");
    expect(validity("2026-12-09T17:43:22.859Z", now)).toBe("valid for 3 d, until 2026-12-09 17:43 UTC");
    expect(validity("2026-12-06T18:43:24.629Z", now)).toBe("valid for 1 h, until 2026-12-06 18:43 UTC");
    expect(validity("2026-12-09T17:43:21.000Z", now)).toBe("valid for 3 d, until 2026-12-09 17:43 UTC");
    expect(validity("2026-12-06T17:00:00.000Z", now)).toBe("valid for 0 s, until 2026-12-06 17:00 UTC");
  });

  it("writes a moment as the web app's pages do, in the terminal's time zone", () => {
    expect(when("2026-12-06T15:41:34.120Z", "UTC")).toBe("6 Dec, 15:41:34");
    expect(when("2026-12-06T15:41:34.120Z", "Europe/Paris")).toBe("6 Dec, 16:41:34");
  });

  it("prints others' text without its control characters: no title change, screen clear or colour", () => {
    const name = "\u001b]0;pwned\u0007\u001b[2J\u001b[31mFAKE\u001b[0m\r...evil\u009b2J";
    expect(printable(`Job #68573 ${name}: HELD`)).toBe("Job #68573 ]0;pwned[2J[31mFAKE[0m...evil2J: HELD");
    expect(printable("a\u0000b\u0008c\u007fd")).toBe("abcd");
    // Its own layout stays: line breaks and tabs, and every printable character.
    expect(printable("ID\tNAME\n1\tZoë 山田 →")).toBe("ID\tNAME\n1\tZoë 山田 →");
    // Nor may one reverse the rest of the line on a terminal that lays out right-to-left text.
    expect(printable("#41  eval \u202Eredro  ada  lab/x  running\u2066\u2069")).toBe("#41  eval redro  ada  lab/x  running");
  });

  it("writes a log's control characters out as cat -v does, keeping line breaks and tabs", () => {
    expect(visible("\x1b]0;title\x07\x1b[2J\x1b[1;32mgreen\x1b[0m\r\n\tnul\x00 del\x7f csi\x9b2J nel\x85 é ✓\n")).toBe(
      "^[]0;title^G^[[2J^[[1;32mgreen^[[0m^M\n\tnul^@ del^? csi<U+009B>2J nel<U+0085> é ✓\n",
    );
    expect(visible("plain line\n")).toBe("plain line\n");
    expect(visible("[h100-1] \u202Eredro\n")).toBe("[h100-1] <U+202E>redro\n");
  });
});
