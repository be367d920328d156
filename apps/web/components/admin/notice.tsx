"use client";

export function Notice({ notice }: { notice: { ok: boolean; text: string } | null }) {
  if (!notice) return null;
  return (
    <div className={`alert ${notice.ok ? "ok" : "bad"}`} role={notice.ok ? "status" : "alert"} style={{ marginBottom: "0.8rem" }}>
      {notice.text}
    </div>
  );
}
