import { describe, expect, it } from "vitest";
import { gpus } from "../src/format";

describe("CLI words", () => {
  it("counts GPUs as a person writes them", () => {
    expect([1, 2, 8].map(gpus)).toEqual(["1 GPU", "2 GPUs", "8 GPUs"]);
  });
});
