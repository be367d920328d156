import { describe, expect, it } from "vitest";
import { plural } from "../lib/words";

describe("plural", () => {
  it("says one GPU, never 1 GPUs", () => {
    expect(plural(1, "GPU")).toBe("1 GPU");
    expect(plural(0, "GPU")).toBe("0 GPUs");
    expect(plural(2048, "GPU")).toBe("2,048 GPUs");
  });

  it("takes an irregular plural", () => {
    expect(plural(1, "person", "people")).toBe("1 person");
    expect(plural(3, "person", "people")).toBe("3 people");
  });
});
