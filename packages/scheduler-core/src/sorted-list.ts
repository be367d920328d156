// Sorted lists of node indexes (ascending), kept sorted by binary search: the board's buckets.

function lowerBound(xs: readonly number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function sortedRemove(xs: number[], x: number): void {
  const i = lowerBound(xs, x);
  if (xs[i] === x) xs.splice(i, 1);
}

export function sortedInsert(xs: number[], x: number): void {
  xs.splice(lowerBound(xs, x), 0, x);
}
