/**
 * V8 flags for processes that run the scheduling core on large queues (worker, core benchmark).
 * A 10,000-pending cycle allocates ~12 MB (reasons, order, plan), most of it live until the cycle
 * ends; with V8's default young generation (semi-spaces growing from 1 MB) the scavenger copies it
 * several times over, ~20% of the cycle. 16-32 MB semi-spaces let one cycle's objects die young. Costs ~30 MB RSS.
 * docker-compose.yml repeats them literally (it cannot import). The simulator does not use them: its
 * cycles are small (tens of pending jobs) and they made no measurable difference there.
 */
export const SCHEDULER_V8_FLAGS = ["--min-semi-space-size=16", "--max-semi-space-size=32"];
