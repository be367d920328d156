/**
 * The events JSONL log: one object a line, in time order. `t` is seconds from the scenario start.
 * The simulator counts every event (the report's `sim.events`) whether or not a file is written.
 */
import { closeSync, openSync, writeSync } from "node:fs";

export type SimEventType = "submit" | "start" | "preempt" | "stop" | "requeue" | "node";
export type StopCause = "finish" | "preempt" | "kill" | "lost" | "cancel";

export interface SimEvent {
  readonly t: number;
  readonly type: SimEventType;
  readonly job?: string;
  readonly budget?: string;
  readonly gpus?: number;
  /** `start`: node name -> GPU indexes on it. */
  readonly nodes?: Readonly<Record<string, readonly number[]>>;
  readonly protectedUntil?: number | null;
  readonly by?: string | null;
  readonly reason?: string;
  readonly graceUntil?: number;
  readonly cause?: StopCause;
  /** `node` events: the node name and its new state. */
  readonly node?: string;
  readonly state?: string;
  readonly [extra: string]: unknown;
}

export interface EventSink {
  emit(e: SimEvent): void;
  readonly count: number;
  close(): void;
}

/** Counts events; writes them when a path is given (buffered, synchronous, in order). */
export function createEventSink(path?: string): EventSink {
  let count = 0;
  if (!path) {
    return {
      emit: () => void count++,
      get count() {
        return count;
      },
      close: () => undefined,
    };
  }
  const fd = openSync(path, "w");
  let buf: string[] = [];
  let size = 0;
  const flush = (): void => {
    if (buf.length === 0) return;
    writeSync(fd, buf.join(""));
    buf = [];
    size = 0;
  };
  return {
    emit(e) {
      count++;
      const line = JSON.stringify(e) + "\n";
      buf.push(line);
      size += line.length;
      if (size > 1 << 20) flush();
    },
    get count() {
      return count;
    },
    close() {
      flush();
      closeSync(fd);
    },
  };
}

/** Collects events in memory (tests). */
export function createMemorySink(): EventSink & { readonly events: SimEvent[] } {
  const events: SimEvent[] = [];
  return {
    events,
    emit: (e) => void events.push(e),
    get count() {
      return events.length;
    },
    close: () => undefined,
  };
}
