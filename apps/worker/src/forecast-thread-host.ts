import { Worker } from "node:worker_threads";
import type { StartForecast } from "@tranche/scheduler-core";
import type { ForecastMessage, ForecastReply, ForecastRequest } from "./forecast-thread-body";

/**
 * One forecaster's forecast thread, started at its first forecast and kept (unref'd: it never keeps
 * the process alive). Requests queue on it in order. A thread that fails or exits fails what it had,
 * and the next forecast starts a new one. Its owner closes it: an instance, not module state, so two
 * forecasters (or two tests) never share a thread or each other's pending requests.
 */
export class ForecastThread {
  private thread: Worker | null = null;
  private nextId = 0;
  private closed = false;
  private readonly waiting = new Map<number, { resolve: (s: StartForecast[]) => void; reject: (e: Error) => void }>();

  /** Whether the thread is alive (cleared by its exit, so a test can tell that close ended it). */
  get running(): boolean {
    return this.thread !== null;
  }

  compute(request: ForecastRequest): Promise<StartForecast[]> {
    if (this.closed) return Promise.reject(new Error("the forecast thread is closed"));
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.waiting.set(id, { resolve, reject });
      const message: ForecastMessage = { id, request };
      this.start().postMessage(message);
    });
  }

  /** Ends the thread (what it had fails) and refuses later forecasts: a closed one starts no new thread. */
  async close(): Promise<void> {
    this.closed = true;
    await this.thread?.terminate();
  }

  private start(): Worker {
    if (this.thread) return this.thread;
    const t = new Worker(new URL("./forecast-thread.mjs", import.meta.url));
    t.unref();
    const failAll = (e: Error) => {
      if (this.thread === t) this.thread = null;
      for (const w of this.waiting.values()) w.reject(e);
      this.waiting.clear();
    };
    t.on("message", (m: ForecastReply) => {
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      if (m.ok) w.resolve(m.starts);
      else w.reject(new Error(m.error));
    });
    t.on("error", (e) => {
      failAll(e);
      void t.terminate();
    });
    t.on("exit", (code) => failAll(new Error(`the forecast thread exited (${code}) without a result`)));
    this.thread = t;
    return t;
  }
}
