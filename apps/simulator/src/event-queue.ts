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

  private less(a: number, b: number): boolean {
    const ta = this.times[a]!;
    const tb = this.times[b]!;
    return ta < tb || (ta === tb && this.seqs[a]! < this.seqs[b]!);
  }

  private swap(a: number, b: number): void {
    [this.times[a], this.times[b]] = [this.times[b]!, this.times[a]!];
    [this.seqs[a], this.seqs[b]] = [this.seqs[b]!, this.seqs[a]!];
    [this.items[a], this.items[b]] = [this.items[b]!, this.items[a]!];
  }

  private up(i: number): void {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(i, p)) break;
      this.swap(i, p);
      i = p;
    }
  }

  private down(i: number): void {
    const n = this.items.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.less(l, m)) m = l;
      if (r < n && this.less(r, m)) m = r;
      if (m === i) break;
      this.swap(i, m);
      i = m;
    }
  }
}
