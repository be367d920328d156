/**
 * Which sidebar entry a page sits under. A job page (/jobs/123) sits under "My jobs" only when the
 * viewer submitted the job, else under "Live queue" (reached from its queue); the page says which once
 * it knows (`jobPageUnder`), and until then no entry is highlighted rather than a wrong one.
 */
export interface NavMatch {
  href: string;
  /** Paths starting with this are under the entry. */
  match?: string;
}

// A job array's page (/arrays/120) sits where its tasks' pages do.
const JOB_PAGE = /^\/(jobs|arrays)\/\d+/;

export function isCurrentNav(path: string, item: NavMatch, jobPageUnder: string | null): boolean {
  if (JOB_PAGE.test(path)) return item.href === jobPageUnder;
  return item.match ? path.startsWith(item.match) || path === item.href : path === item.href;
}

/** The entry a job page sits under: null while the viewer or the job is not known yet. */
export function jobPageUnder(viewerId: string | undefined, submitterId: string | undefined): string | null {
  if (viewerId === undefined || submitterId === undefined) return null;
  return viewerId === submitterId ? "/jobs" : "/queue";
}
