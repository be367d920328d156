"use client";
import { useState } from "react";
import { errorText } from "../../lib/error-text";

/** One admin action's message line: what went wrong (the server's words) or what was done. */
export function useNotice() {
  const [notice, setNotice] = useState<{ ok: boolean; text: string } | null>(null);
  return {
    notice,
    ok: (text: string) => setNotice({ ok: true, text }),
    // errorText: field names as the pages spell them, zod's lists in words.
    fail: (e: { message: string }) => setNotice({ ok: false, text: errorText(e) }),
    clear: () => setNotice(null),
  };
}
