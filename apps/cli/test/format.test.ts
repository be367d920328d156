import { describe, expect, it } from "vitest";
import { gpus, stoppingText } from "../src/format";

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
});
