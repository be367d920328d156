/** Durations in scenario files and trace rows: the core's one parser (see its doc for the format). */
export { parseDuration, durationProblem } from "@tranche/scheduler-core";
/** Formats seconds as the shortest exact duration text (`7200` -> `2h`). */
export function formatDuration(seconds: number): string {
  for (const [unit, size] of [
    ["d", 86400],
    ["h", 3600],
    ["m", 60],
  ] as const) {
    if (seconds !== 0 && seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}
