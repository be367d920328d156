/**
 * A binary min-heap of timed simulator events, ordered by time then insertion sequence (so equal
 * times keep the order they were scheduled in: deterministic).
 */
export class EventQueue<T> {
  private times: number[] = [];
  private seqs: number[] = [];
  private items: T[] = [];
  private seq = 0;

  get size(): number {
    return this.items.length;
  }

  push(t: number, item: T): void {
    this.times.push(t);
    this.seqs.push(this.seq++);
    this.items.push(item);
    this.up(this.items.length - 1);
  }

  /** Time of the earliest event; `Infinity` when empty. */
  peekTime(): number {
    return this.items.length > 0 ? this.times[0]! : Infinity;
  }

  pop(): { t: number; item: T } | undefined {
    const n = this.items.length;
    if (n === 0) return undefined;
    const t = this.times[0]!;
    const item = this.items[0]!;
    const lastT = this.times.pop()!;
    const lastS = this.seqs.pop()!;
    const lastI = this.items.pop()!;
    if (n > 1) {
      this.times[0] = lastT;
      this.seqs[0] = lastS;
      this.items[0] = lastI;
      this.down(0);
    }
    return { t, item };
  }

  /**
   * Sift-up and sift-down move the entries in the way one step at a time and write the moving entry
   * once, where it lands: the same heap as swapping it along, without a swap's three array pairs a
   * level (a destructuring swap was the queue's largest cost in the 60-day replay's profile).
   */
  private up(i: number): void {
    const { times, seqs, items } = this;
    const t = times[i]!;
    const seq = seqs[i]!;
    const item = items[i]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const tp = times[p]!;
      if (!(t < tp || (t === tp && seq < seqs[p]!))) break;
      times[i] = tp;
      seqs[i] = seqs[p]!;
      items[i] = items[p]!;
      i = p;
    }
    times[i] = t;
    seqs[i] = seq;
    items[i] = item;
  }

  private down(i: number): void {
    const { times, seqs, items } = this;
    const n = items.length;
    const t = times[i]!;
    const seq = seqs[i]!;
    const item = items[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      // The smaller child (no two entries have equal keys: seq is unique).
      const m = r < n && this.less(r, l) ? r : l;
      const tm = times[m]!;
      if (!(tm < t || (tm === t && seqs[m]! < seq))) break;
      times[i] = tm;
      seqs[i] = seqs[m]!;
      items[i] = items[m]!;
      i = m;
    }
    times[i] = t;
    seqs[i] = seq;
    items[i] = item;
  }

  private less(a: number, b: number): boolean {
    const ta = this.times[a]!;
    const tb = this.times[b]!;
    return ta < tb || (ta === tb && this.seqs[a]! < this.seqs[b]!);
  }
}
