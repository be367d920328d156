import { headers } from "next/headers";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { Shell } from "../../components/shell";
import { sessionActor } from "../../server/auth";

export const dynamic = "force-dynamic";

/** Every page in here needs a signed-in user; the API checks again on every call. */
export default async function AppLayout({ children }: { children: ReactNode }) {
  const user = await sessionActor(await headers());
  if (!user) redirect("/login");
  return <Shell user={user}>{children}</Shell>;
}
