import Link from "next/link";

/** The 404 page's body: what was not found and where to go instead. */
export function NotFoundPanel() {
  return (
    <div className="not-found" role="main">
      <div className="not-found-code">404</div>
      <h1>Nothing here</h1>
      <p className="muted">This page does not exist: the job, cluster or page may have been mistyped, or the link is old.</p>
      <div className="row" style={{ justifyContent: "center" }}>
        <Link className="btn primary" href="/">
          Overview
        </Link>
        <Link className="btn" href="/jobs">
          My jobs
        </Link>
        <Link className="btn" href="/queue">
          Live queue
        </Link>
      </div>
    </div>
  );
}
