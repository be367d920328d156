// Runs once when the Next server starts (Node.js runtime only).
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { envProblems } = await import("./server/check-env");
  const problems = envProblems();
  if (problems.length > 0) {
    for (const p of problems) console.error(`tranche-web: ${p}.`);
    process.exit(2);
  }
  const { stampPeerAddresses } = await import("./server/peer-address");
  stampPeerAddresses();
}
