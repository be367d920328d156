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
  const { stampPeerAddresses } = await import("./server/peer-address");
  stampPeerAddresses();
}
