import { describe, expect, it } from "vitest";
import type { ApiTokenView } from "@tranche/contracts";
import { tokenToRevoke } from "../src/tokens";

const token = (id: string, name: string, prefix: string, revokedAt: string | null = null): ApiTokenView => ({
  id,
  name,
  prefix,
  createdAt: "2026-12-01T00:00:00Z",
  lastUsedAt: null,
  expiresAt: null,
  revokedAt,
});

describe("tranche token revoke", () => {
  const tokens = [
    token("cmxctp0dh0012xn7da545w4ni", "laptop", "trn_Ab3xYz"),
    token("cmxctp0dh0013xn7da545w4nj", "ci", "trn_Qq9kLm"),
    token("cmxctp0dh0014xn7da545w4nk", "ci", "trn_Zz1aBc"),
    token("cmxctp0dh0015xn7da545w4nl", "old", "trn_Old001", "2026-12-02T00:00:00Z"),
    token("cmxctp0dh0016xn7da545w4nm", "old", "trn_Old002"),
  ];

  it("takes a token's name or the characters it starts with, as `tranche tokens` shows them", () => {
    expect(tokenToRevoke(tokens, "laptop")).toBe("cmxctp0dh0012xn7da545w4ni");
    expect(tokenToRevoke(tokens, "trn_Qq9kLm")).toBe("cmxctp0dh0013xn7da545w4nj");
    expect(tokenToRevoke(tokens, "trn_Zz1aBc…")).toBe("cmxctp0dh0014xn7da545w4nk");
    // A name shared with a revoked token means the live one.
    expect(tokenToRevoke(tokens, "old")).toBe("cmxctp0dh0016xn7da545w4nm");
    // An id (from --json) still works; one not among yours goes to the server, which says why.
    expect(tokenToRevoke(tokens, "cmxctp0dh0013xn7da545w4nj")).toBe("cmxctp0dh0013xn7da545w4nj");
    expect(tokenToRevoke(tokens, "someone-elses")).toBe("someone-elses");
  });

  it("asks which when two live tokens share the name, naming them by their first characters", () => {
    expect(() => tokenToRevoke(tokens, "ci")).toThrow(
      "You have 2 tokens named 'ci': name one by the characters it starts with (trn_Qq9kLm…, trn_Zz1aBc…)",
    );
  });
});
