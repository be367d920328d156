// Small stroke icons (system fonts lack some symbols; SVG renders everywhere).
const P = { fill: "none", stroke: "currentColor", strokeWidth: 1.8, strokeLinecap: "round", strokeLinejoin: "round" } as const;

export const ICONS = {
  overview: (
    <svg viewBox="0 0 24 24" {...P}>
      <rect x="3" y="3" width="7" height="9" rx="1.5" />
      <rect x="14" y="3" width="7" height="5" rx="1.5" />
      <rect x="14" y="12" width="7" height="9" rx="1.5" />
      <rect x="3" y="16" width="7" height="5" rx="1.5" />
    </svg>
  ),
  bell: (
    <svg viewBox="0 0 24 24" {...P}>
      <path d="M6 16V11a6 6 0 0 1 12 0v5l1.5 2h-15z" />
      <path d="M10 20.5a2 2 0 0 0 4 0" />
    </svg>
  ),
  submit: (
    <svg viewBox="0 0 24 24" {...P}>
      <circle cx="12" cy="12" r="9" />
      <path d="M12 8v8M8 12h8" />
    </svg>
  ),
  jobs: (
    <svg viewBox="0 0 24 24" {...P}>
      <path d="M8 6h13M8 12h13M8 18h13M3.5 6h.01M3.5 12h.01M3.5 18h.01" />
    </svg>
  ),
  queue: (
    <svg viewBox="0 0 24 24" {...P}>
      <path d="M4 7h10M4 12h14M4 17h7" />
      <path d="M18 14l3 3-3 3" />
    </svg>
  ),
  budgets: (
    <svg viewBox="0 0 24 24" {...P}>
      <rect x="3" y="4" width="18" height="5" rx="1.5" />
      <path d="M3 14h6v6H3zM11 14h4v6h-4zM17 14h4v6h-4z" />
    </svg>
  ),
  nodes: (
    <svg viewBox="0 0 24 24" {...P}>
      <rect x="3" y="4" width="18" height="7" rx="1.5" />
      <rect x="3" y="13" width="18" height="7" rx="1.5" />
      <path d="M7 7.5h.01M7 16.5h.01" />
    </svg>
  ),
  charts: (
    <svg viewBox="0 0 24 24" {...P}>
      <path d="M4 20V10M10 20V4M16 20v-7M22 20H2" />
    </svg>
  ),
  tokens: (
    <svg viewBox="0 0 24 24" {...P}>
      <circle cx="8" cy="15" r="4" />
      <path d="M11 12l9-9M16 7l3 3" />
    </svg>
  ),
  session: (
    <svg viewBox="0 0 24 24" {...P}>
      <path d="M4 17l6-5-6-5M12 19h8" />
    </svg>
  ),
  tree: (
    <svg viewBox="0 0 24 24" {...P}>
      <circle cx="12" cy="5" r="2" />
      <circle cx="5" cy="19" r="2" />
      <circle cx="12" cy="19" r="2" />
      <circle cx="19" cy="19" r="2" />
      <path d="M12 7v10M12 12H5v5M12 12h7v5" />
    </svg>
  ),
  users: (
    <svg viewBox="0 0 24 24" {...P}>
      <circle cx="9" cy="8" r="3.5" />
      <path d="M2.5 20a6.5 6.5 0 0 1 13 0M16 4.5a3.5 3.5 0 0 1 0 7M18 14a6.5 6.5 0 0 1 3.5 6" />
    </svg>
  ),
  clusters: (
    <svg viewBox="0 0 24 24" {...P}>
      <path d="M12 3l8 4.5v9L12 21l-8-4.5v-9z" />
      <path d="M12 12l8-4.5M12 12L4 7.5M12 12v9" />
    </svg>
  ),
  labFile: (
    <svg viewBox="0 0 24 24" {...P}>
      <path d="M6 3h8l4 4v14H6z" />
      <path d="M14 3v4h4M9 12h6M9 16h6" />
    </svg>
  ),
  audit: (
    <svg viewBox="0 0 24 24" {...P}>
      <rect x="5" y="5" width="14" height="16" rx="2" />
      <path d="M9 3h6v3H9zM9 13l2 2 4-4" />
    </svg>
  ),
  browsers: (
    <svg viewBox="0 0 24 24" {...P}>
      <rect x="3" y="4" width="18" height="16" rx="2" />
      <path d="M3 9h18M6.5 6.5h.01M9 6.5h.01" />
    </svg>
  ),
} as const;
