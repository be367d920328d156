import { headers } from "next/headers";
import type { ReactNode } from "react";
import type { Role } from "@tranche/domain";
import { sessionActor } from "../../server/auth";

/**
 * Shows an admin page only to the roles it is for (admins pass every gate). The API checks again on
 * every call: this only spares others a page of errors.
 */
export async function AdminGate({ roles, what, children }: { roles: Role[]; what: string; children: ReactNode }) {
  const user = await sessionActor(await headers());
  if (user && (user.role === "ADMIN" || roles.includes(user.role))) return <>{children}</>;
  return (
    <div className="empty" role="alert">
      <strong>This page is for {roles.map((r) => r.toLowerCase() + "s").join(" and ") || "admins"}</strong>
      You are signed in as a {user?.role.toLowerCase() ?? "guest"}; ask an admin if you need to {what}.
    </div>
  );
}
