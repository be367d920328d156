import type { JobState } from "@tranche/contracts";
import { plural } from "./words";

// The array page's words: where its tasks stand, what a button will do before it is pressed, and what it did.

// Where its tasks stand ("17 pending"): shared with the job lists and `tranche ls`.
export { arrayStateParts } from "@tranche/contracts/format";

/** Under an array's list when it shows fewer tasks than were chosen; null when it shows them all. */
export function arrayListCutText(shown: number, chosen: number): string | null {
  if (shown >= chosen) return null;
  return `Showing ${shown.toLocaleString("en-US")} of these ${chosen.toLocaleString("en-US")} tasks, the last by index: choose a state above to see fewer at once.`;
}

/** What each button would touch: the pending tasks a hold takes, the running ones it leaves, the tasks not yet ended. */
export function arrayCounts(states: Partial<Record<JobState, number>>): { pending: number; running: number; active: number } {
  const n = (s: JobState) => states[s] ?? 0;
  const running = n("RUNNING") + n("STOPPING");
  return { pending: n("PENDING"), running, active: n("PENDING") + n("HELD") + running };
}

/** The question before holding: how many tasks it holds, and that running ones go on. */
export function holdArrayQuestion(arrayId: number, pending: number, running: number): string {
  const them = pending === 1 ? "It will not start" : "They will not start";
  const goOn = running > 0 ? `; ${plural(running, "running task")} ${running === 1 ? "goes" : "go"} on` : "";
  return `Hold the ${plural(pending, "pending task")} of array #${arrayId}? ${them} until released${goOn}.`;
}

/** The question before releasing: how many held tasks go back in the queue. */
export function releaseArrayQuestion(arrayId: number, releasable: number): string {
  return `Release the ${plural(releasable, "held task")} of array #${arrayId}? ${releasable === 1 ? "It goes" : "They go"} back in the queue.`;
}

/** What a hold did: "Held 17 pending tasks; 3 were already running." */
export function arrayHeldText(r: { held: number; running: number }): string {
  const running =
    r.running > 0 ? `; ${r.running.toLocaleString("en-US")} ${r.running === 1 ? "was" : "were"} already running` : "";
  return `Held ${plural(r.held, "pending task")}${running}.`;
}

/** What a release did, and the tasks an operator's hold keeps: "Released 3 held tasks; 1 held by an operator stays held." */
export function arrayReleasedText(r: { released: number; heldByOperator: number }): string {
  const kept =
    r.heldByOperator > 0
      ? `; ${r.heldByOperator.toLocaleString("en-US")} held by an operator or an admin ${r.heldByOperator === 1 ? "stays" : "stay"} held`
      : "";
  return `Released ${plural(r.released, "held task")}${kept}.`;
}
