/**
 * SPEC §4 measures are per hour (owed = min(entitlement, demand) is taken hour by hour). This
 * integrates a piecewise-constant rate (GPUs) into hourly buckets of GPU-seconds, incrementally:
 * each change costs O(hours crossed since the last change). The simulator keeps one per measure.
 */
export const HOUR = 3600;

export class HourlyAccumulator {
  rate = 0;
  private lastT = 0;
  readonly buckets: number[] = [];

  /** Integrates up to `t` at the current rate. */
  advance(t: number): void {
    let from = this.lastT;
    if (t <= from) return;
    if (this.rate !== 0) {
      while (from < t) {
        const h = Math.floor(from / HOUR);
        const to = Math.min(t, (h + 1) * HOUR);
        while (this.buckets.length <= h) this.buckets.push(0);
        this.buckets[h]! += this.rate * (to - from);
        from = to;
      }
    }
    this.lastT = t;
  }

  set(t: number, rate: number): void {
    this.advance(t);
    this.rate = rate;
  }

  add(t: number, delta: number): void {
    this.advance(t);
    this.rate += delta;
  }

  /** Buckets 0..hours-1 (missing ones are 0). */
  series(hours: number): number[] {
    const out = new Array<number>(hours).fill(0);
    for (let i = 0; i < Math.min(hours, this.buckets.length); i++) out[i] = this.buckets[i]!;
    return out;
  }
}
