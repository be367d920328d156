/**
 * V8 flags for processes that run the scheduling core (worker, simulator, core benchmark).
 * A 10,000-pending cycle builds ~10 MB of reasons and plan that live until the cycle ends; with V8's
 * default young generation (semi-spaces growing from 1 MB) the scavenger copies them several times
 * over, ~20% of the cycle. 16-32 MB semi-spaces let one cycle's objects die young. Costs ~30 MB RSS.
 * docker-compose.yml and the `sim` script in package.json repeat these literally (they cannot import).
 */
export const SCHEDULER_V8_FLAGS = ["--min-semi-space-size=16", "--max-semi-space-size=32"];
