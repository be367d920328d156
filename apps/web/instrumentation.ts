// Runs once when the Next server starts (Node.js runtime only).
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { stampPeerAddresses } = await import("./server/peer-address");
  stampPeerAddresses();
}
