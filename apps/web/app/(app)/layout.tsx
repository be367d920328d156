import { headers } from "next/headers";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { Shell } from "../../components/shell";
import { signedInSession } from "../../server/auth";
import { loginPath, PATH_HEADER } from "../login/return-path";

export const dynamic = "force-dynamic";

/** Every page in here needs a signed-in user; the API checks again on every call. */
export default async function AppLayout({ children }: { children: ReactNode }) {
  const h = await headers();
  // A page is the person at work: it moves the session's last-seen time (the sessions list).
  const user = (await signedInSession(h, { seen: true }))?.actor;
  if (!user) redirect(loginPath(h.get(PATH_HEADER)));
  return <Shell user={user}>{children}</Shell>;
}
