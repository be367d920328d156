import { describe, expect, it } from "vitest";
import { tidyImage, tidyPersonName, userNameHooks } from "../server/user-names";

// A first single sign-on's name comes from the provider: made to fit, never refused (a long name at the
// provider must not lock its owner out). Names people type are refused instead (user-names integration test).
describe("a provider's name made to fit", () => {
  it("keeps a good name as it is, trimmed", () => {
    expect(tidyPersonName("  Sam Lee ", "sam@uni.example")).toBe("Sam Lee");
  });
  it("drops control characters and cuts at 100 characters", () => {
    expect(tidyPersonName("Sam\u001b[2J Lee\u0007", "sam@uni.example")).toBe("Sam [2J Lee");
    expect(tidyPersonName("é".repeat(5000), "x@y")).toBe("é".repeat(100));
    expect(tidyPersonName("🙂".repeat(150), "x@y")).toBe("🙂".repeat(100));
  });
  it("removes characters that reorder the text around them, so a name cannot read as another's", () => {
    expect(tidyPersonName("\u202Enimda", "sam@uni.example")).toBe("nimda");
    expect(tidyPersonName("Sam \u2066Lee\u2069 \u202Aok\u202C", "sam@uni.example")).toBe("Sam Lee ok");
    expect(tidyPersonName("\u202E\u2067", "sam@uni.example")).toBe("sam");
  });
  it("falls back to the e-mail's local part when nothing is left", () => {
    expect(tidyPersonName("\u001b\u0007  ", "sam@uni.example")).toBe("sam");
    expect(tidyPersonName(undefined, "sam@uni.example")).toBe("sam");
    expect(tidyPersonName("", undefined)).toBe("user");
  });
});

describe("the profile picture better-auth stores (no page shows it)", () => {
  it("keeps an http(s) address of at most 2 KiB and drops anything else", () => {
    expect(tidyImage("https://example.org/me.png")).toBe("https://example.org/me.png");
    expect(tidyImage(`https://example.org/${"a".repeat(3000)}`)).toBeNull();
    expect(tidyImage("javascript:alert(1)")).toBeNull();
    expect(tidyImage(42)).toBeNull();
  });
  it("is tidied on every user better-auth writes, a sign-up's too", async () => {
    const r = (await userNameHooks.create.before(
      { name: "Sam", email: "sam@uni.example", image: "x".repeat(2_000_000) } as never,
      { path: "/sign-up/email" } as never,
    )) as { data: { image: unknown } };
    expect(r.data.image).toBeNull();
  });
});
