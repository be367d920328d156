// How an ended job ended, in the words `tranche ls` and the web's job lists both use, as sacct shows it:
// the state alone does not say a FAILED job's exit code, or that a KILLED one reached its maximum runtime.

type Ended = { state: string; exitCode: number | null };

/** How an ended job ended, beyond its state: "exit code 3", "at its maximum runtime"; "" when the state says it. */
export function jobEndWords(j: Ended): string {
  if (j.state === "KILLED") return "at its maximum runtime";
  if (j.state === "LOST") return "lost with its node";
  if (j.state === "PREEMPTED") return "preempted, not requeued";
  if (j.state === "FAILED" && j.exitCode !== null) return `exit code ${j.exitCode}`;
  return "";
}

/**
 * How and when an ended job ended: "exit code 7, ended 2 min ago". `since` says how long ago it ended
 * ("2 min ago", "just now"), each caller in its own clock words; null when it has no end time.
 */
export function jobEndedText(j: Ended, since: string | null): string {
  return [jobEndWords(j), since ? `ended ${since}` : ""].filter(Boolean).join(", ");
}
