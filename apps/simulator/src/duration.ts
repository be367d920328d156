/** Durations in scenario files and trace rows: the core's one parser (see its doc for the format). */
export { parseDuration, durationProblem } from "@tranche/scheduler-core";
