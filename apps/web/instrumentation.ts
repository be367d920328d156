// Runs once when the Next server starts (Node.js runtime only).
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { webConfigProblem } = await import("./server/start-config");
  const problem = webConfigProblem();
  if (problem) {
    // Refuse to serve rather than fail the first sign-in that reads the setting.
    console.error(`tranche: ${problem}`);
    process.exit(1);
  }
  const { exitPromptlyOnSignal } = await import("./server/shutdown");
  exitPromptlyOnSignal();
  const { sessionsOrigin } = await import("./server/sessions-origin");
  if (sessionsOrigin() === null)
    console.warn(
      "tranche: interactive sessions are not served until TRANCHE_SESSIONS_ORIGIN names a host of their own (see docs/admin-guide.md)",
    );
  const { stampPeerAddresses } = await import("./server/peer-address");
  stampPeerAddresses();
  const { gateUnproxiedRequests } = await import("./server/unproxied-gate");
  gateUnproxiedRequests();
  const { serveSessionUpgrades } = await import("./server/session-upgrades");
  serveSessionUpgrades();
}
