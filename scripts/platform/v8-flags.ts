/**
 * V8 flags for processes that run the scheduling core on large queues (worker, core benchmark).
 * A 10,000-pending cycle allocates ~12 MB (reasons, order, plan), most of it live until the cycle
 * ends; with V8's default young generation (semi-spaces growing from 1 MB) the scavenger copies it
 * several times over, ~20% of the cycle. 16-32 MB semi-spaces let one cycle's objects die young. Costs ~30 MB RSS.
 * docker-compose.yml repeats them literally (it cannot import), and so does package.json's `sim`
 * script. The simulator uses them too (bench/simulator.bench.ts re-runs itself with them): an
 * overloaded replay keeps 10,000-20,000 jobs pending, and its cycles outgrow the default young
 * generation as the worker's do (philly-overload, 60 days, run alone and alternating: 54.0 s and
 * 52.7 s against 62.8 s and 59.6 s, with less peak RSS, 291-295 MB against 374-382 MB, since fewer of
 * a cycle's objects are promoted to the old generation).
 */
export const SCHEDULER_V8_FLAGS = ["--min-semi-space-size=16", "--max-semi-space-size=32"];
