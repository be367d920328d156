/**
 * Sliding-window integral of a piecewise-constant rate, maintained incrementally: the simulator's
 * equivalent of a usage ledger. `integral(now - window, now)` costs O(1) amortised because times only
 * move forward and breakpoints older than the window are dropped. It computes exactly what the core's
 * computeUsage / computeEntitlements compute by rescanning segments (checked in the tests).
 */
export class WindowIntegral {
  /** Breakpoint times, the cumulative integral at each, and the rate from each on. */
  private times: number[] = [];
  private cums: number[] = [];
  private rates: number[] = [];
  private head = 0;

  constructor(start: number, rate = 0) {
    this.times.push(start);
    this.cums.push(0);
    this.rates.push(rate);
  }

  get rate(): number {
    return this.rates[this.rates.length - 1]!;
  }

  /** Sets the rate from `t` on (`t` never earlier than the last change). */
  setRate(t: number, rate: number): void {
    const last = this.times.length - 1;
    if (rate === this.rates[last]) return;
    const t0 = this.times[last]!;
    if (t === t0) {
      this.rates[last] = rate;
      return;
    }
    this.times.push(t);
    this.cums.push(this.cums[last]! + this.rates[last]! * (t - t0));
    this.rates.push(rate);
  }

  addRate(t: number, delta: number): void {
    this.setRate(t, this.rate + delta);
  }

  /** Cumulative integral from the start up to `t` (t >= the oldest kept breakpoint). */
  private cumAt(t: number): number {
    // Scan back from the end: queries are at `now` (last segment) or at the window start (near head).
    let i = this.times.length - 1;
    if (t < this.times[i]!) {
      i = this.head;
      while (i + 1 < this.times.length && this.times[i + 1]! <= t) i++;
    }
    const t0 = this.times[i]!;
    if (t <= t0) return this.cums[i]!;
    return this.cums[i]! + this.rates[i]! * (t - t0);
  }

  /**
   * Integral over [from, to], with from clipped to the start. Drops breakpoints before `from`, so
   * later queries must not start earlier.
   */
  integral(from: number, to: number): number {
    const start = this.times[0]!;
    if (from < start) from = start;
    if (to <= from) return 0;
    while (this.head + 1 < this.times.length && this.times[this.head + 1]! <= from) this.head++;
    if (this.head > 1024 && this.head * 2 > this.times.length) this.compact();
    return this.cumAt(to) - this.cumAt(from);
  }

  private compact(): void {
    // Keep the very first time (clip point) semantics: the first kept breakpoint becomes index 0,
    // and `start` clipping still works because every query's `from` is past it.
    this.times = this.times.slice(this.head);
    this.cums = this.cums.slice(this.head);
    this.rates = this.rates.slice(this.head);
    this.head = 0;
  }
}
