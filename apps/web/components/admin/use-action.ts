"use client";
import { useState } from "react";

/** One admin action's message line: what went wrong (the server's words) or what was done. */
export function useNotice() {
  const [notice, setNotice] = useState<{ ok: boolean; text: string } | null>(null);
  return {
    notice,
    ok: (text: string) => setNotice({ ok: true, text }),
    fail: (e: { message: string }) => setNotice({ ok: false, text: e.message }),
    clear: () => setNotice(null),
  };
}
