// Shown on the sign-in page while no account exists (a lab's first start, TRANCHE_DEMO=0): nobody can
// sign in yet, so say how the operator creates the first administrator on the server.
export function FirstAdminHint() {
  return (
    <div className="alert info" role="status" data-testid="first-admin-hint">
      <b>No account exists yet.</b> On the machine that runs Tranche, create the first administrator:
      <pre style={{ margin: "0.5rem 0", whiteSpace: "pre-wrap" }}>
        <code>npm run admin -- create-admin --email you@lab.example --name &quot;Your Name&quot;</code>
      </pre>
      It reads the password from standard input and prints an API token once. Then sign in here with that e-mail and password.
    </div>
  );
}
