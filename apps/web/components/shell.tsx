"use client";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useState, type ReactNode } from "react";
import type { Actor } from "@tranche/domain";
import { authClient } from "../lib/auth-client";
import { NotificationBell } from "./notification-bell";
import { ICONS } from "./icons";
import { NavHighlight } from "./nav-highlight";
import { isCurrentNav } from "../lib/nav";

interface NavItem {
  href: string;
  label: string;
  ico: keyof typeof ICONS;
  match?: string;
}

const WORK: NavItem[] = [
  { href: "/", label: "Overview", ico: "overview" },
  { href: "/submit", label: "Submit a job", ico: "submit" },
  { href: "/sessions/new", label: "Start a session", ico: "session", match: "/sessions" },
  { href: "/jobs", label: "My jobs", ico: "jobs", match: "/jobs" },
  { href: "/queue", label: "Live queue", ico: "queue", match: "/queue" },
];
const ORG: NavItem[] = [
  { href: "/budgets", label: "Budgets", ico: "budgets", match: "/budgets" },
  { href: "/nodes", label: "Nodes", ico: "nodes", match: "/nodes" },
  { href: "/charts", label: "Measures", ico: "charts", match: "/charts" },
];
const ADMIN: NavItem[] = [
  { href: "/admin", label: "Budget tree", ico: "tree", match: "/admin/tree" },
  { href: "/admin/users", label: "Users", ico: "users", match: "/admin/users" },
  { href: "/admin/clusters", label: "Clusters and hosts", ico: "clusters", match: "/admin/clusters" },
  { href: "/admin/lab", label: "Lab file", ico: "labFile", match: "/admin/lab" },
];
// Everyone but researchers reads the audit log, each their part of it.
const AUDIT: NavItem = { href: "/audit", label: "Audit log", ico: "audit", match: "/audit" };
// Operators see the part of the Admin section that is theirs: enrolling hosts.
const OPERATOR_ADMIN = ADMIN.filter((i) => i.href === "/admin/clusters");
const ME: NavItem[] = [
  { href: "/tokens", label: "API tokens", ico: "tokens", match: "/tokens" },
  { href: "/sign-ins", label: "Signed-in browsers", ico: "browsers", match: "/sign-ins" },
];

/** Every sidebar link, for the test that each has an icon of its own. */
export const NAV_ITEMS: readonly NavItem[] = [...WORK, ...ORG, ...ADMIN, AUDIT, ...ME];

const ROLE_LABEL = { RESEARCHER: "Researcher", MANAGER: "Manager", OPERATOR: "Operator", ADMIN: "Admin" } as const;

export function Shell({ user, children }: { user: Actor; children: ReactNode }) {
  const path = usePathname();
  const router = useRouter();
  // A job page says which entry it sits under (My jobs only for the viewer's own jobs).
  const [jobPageUnder, setJobPageUnder] = useState<string | null>(null);
  const current = (i: NavItem) => isCurrentNav(path, i, jobPageUnder);
  const admin = user.role === "ADMIN" ? ADMIN : user.role === "OPERATOR" ? OPERATOR_ADMIN : [];
  const section = (title: string, items: NavItem[]) => (
    <>
      <div className="nav-section">{title}</div>
      {items.map((i) => (
        <Link key={i.href} href={i.href} aria-current={current(i) ? "page" : undefined}>
          <span className="ico" aria-hidden>
            {ICONS[i.ico]}
          </span>
          {i.label}
        </Link>
      ))}
    </>
  );
  const initials = user.name
    .split(/\s+/)
    .map((s) => s[0])
    .join("")
    .slice(0, 2)
    .toUpperCase();
  return (
    <div className="shell">
      <aside className="sidebar">
        <Link href="/" className="brand">
          <span className="brand-mark" aria-hidden>
            <i />
            <i />
            <i />
          </span>
          Tranche
        </Link>
        <nav className="nav" aria-label="Main">
          {section("Work", WORK)}
          {section("Organisation", user.role === "RESEARCHER" ? ORG : [...ORG, AUDIT])}
          {admin.length ? section("Admin", admin) : null}
          {section("You", ME)}
          <NotificationBell current={path.startsWith("/notifications")} />
        </nav>
        <div className="sidebar-foot">
          <div className="who">
            <span className="avatar" aria-hidden>
              {initials}
            </span>
            <div style={{ minWidth: 0 }}>
              <div className="who-name" data-testid="who-name">
                {user.name}
              </div>
              <div className="who-role">
                {ROLE_LABEL[user.role]} ·{" "}
                <button
                  className="linkbtn"
                  onClick={async () => {
                    await authClient.signOut();
                    router.push("/login");
                    router.refresh();
                  }}
                >
                  Sign out
                </button>
              </div>
            </div>
          </div>
        </div>
      </aside>
      <div className="main">
        <main className="page">
          <NavHighlight.Provider value={setJobPageUnder}>{children}</NavHighlight.Provider>
        </main>
      </div>
    </div>
  );
}
