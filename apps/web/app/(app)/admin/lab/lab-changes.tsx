import { LAB_CHANGE_GROUPS, labImportSummary, type LabChangeGroup, type LabImportResult } from "@tranche/contracts";

const HEADING: Record<LabChangeGroup, string> = {
  users: "Users",
  tree: "Tree",
  managers: "Managers",
  members: "Members",
  shares: "Shares",
};

/** What a check found (or an import did): the counts first, then each change under what it changes. */
export function LabChanges({ result }: { result: LabImportResult }) {
  const head =
    result.changes.length === 0
      ? "Nothing to change: the lab already has everything in this file."
      : result.dryRun
        ? `The import would change: ${labImportSummary(result)}.`
        : `Imported: ${labImportSummary(result)}.`;
  return (
    <div className="stack" data-testid="lab-changes">
      <strong>{head}</strong>
      {LAB_CHANGE_GROUPS.filter((g) => result.grouped[g].length > 0).map((g) => (
        <section key={g} aria-label={HEADING[g]}>
          <h3 className="small">
            {HEADING[g]} ({result.grouped[g].length})
          </h3>
          <ul>
            {result.grouped[g].map((c) => (
              <li key={c}>{result.dryRun ? `would ${c}` : c}</li>
            ))}
          </ul>
        </section>
      ))}
      {result.passwordLinks.length > 0 ? (
        <section aria-label="Set-password links">
          <h3 className="small">Set-password links to send (each works once, until it expires)</h3>
          <ul>
            {result.passwordLinks.map((l) => (
              <li key={l.email}>
                {l.email}: <span className="mono">{l.setPasswordUrl}</span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </div>
  );
}

/** A refused check or import: the server's sentence, and each problem at the place in the file it names. */
export function LabProblems({ error }: { error: { message: string; issues: { path: string; message: string }[] } }) {
  const head = error.issues.length > 0 ? (error.message.split(": ")[0] ?? error.message) : error.message;
  return (
    <div className="alert bad" role="alert" data-testid="lab-problems">
      <p style={{ margin: 0 }}>{/[.!?]$/.test(head) ? head : `${head}.`}</p>
      {error.issues.length > 0 ? (
        <ul>
          {error.issues.map((i) => (
            <li key={`${i.path} ${i.message}`}>
              <span className="mono">{i.path}</span>: {i.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
