import { describe, expect, it } from "vitest";
import { enrollmentTokenStatusText } from "../src/format";

describe("an enrollment token's status in words", () => {
  it("says used, expired or not used yet, never the stored code in capitals", () => {
    expect(enrollmentTokenStatusText("USED")).toBe("used");
    expect(enrollmentTokenStatusText("EXPIRED")).toBe("expired");
    expect(enrollmentTokenStatusText("UNUSED")).toBe("not used yet");
  });
});
